package transport

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/payledger/payledger/commands"
)

type splitView struct {
	Address    *string                   `json:"address"`
	Recipients []commands.SplitRecipient `json:"recipients"`
}

func viewSplit(st commands.SplitState) splitView {
	v := splitView{Recipients: []commands.SplitRecipient{}}
	if st.Configured {
		a := st.Address
		v.Address, v.Recipients = &a, st.Recipients
	}
	return v
}

func (s *Server) getSplit(c echo.Context) error {
	p, _ := PrincipalFrom(c)
	st, err := s.aggregates.Split(c.Request().Context(), p.Wallet)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"split": viewSplit(st)})
}

type splitRequest struct {
	SplitAddress string                     `json:"splitAddress"`
	Recipients   *[]commands.SplitRecipient `json:"recipients"`
}

func (s *Server) postSplit(c echo.Context) error {
	var req splitRequest
	if err := DecodeJSON(c, &req); err != nil {
		return err
	}
	sess, _ := SessionFrom(c)
	res, err := s.cmd.ConfigureSplit.Handle(c.Request().Context(), commands.ConfigureMerchantSplit{Merchant: sess.Wallet,
		Address: req.SplitAddress, Recipients: req.Recipients, Meta: s.metadata(c, sess.Wallet)})
	if err != nil {
		return err
	}
	body := map[string]any{"ok": true, "split": viewSplit(res.State)}
	if res.Idempotent {
		body["idempotent"] = true
	}
	return c.JSON(http.StatusOK, body)
}

func (s *Server) withdraw(c echo.Context) error {
	return &Error{Status: http.StatusGone, Code: "deprecated", Message: "Split withdraw is retired: call the split contract's release function from the connected wallet",
		Extra: map[string]any{"reason": "use_connected_wallet"}}
}

// metadata is the envelope of events a request causes.
func (s *Server) metadata(c echo.Context, actor string) commands.Metadata {
	return commands.Metadata{CorrelationID: CorrelationID(c.Request().Context()), Actor: actor, Source: "api " + c.Request().Method + " " + c.Path()}
}
