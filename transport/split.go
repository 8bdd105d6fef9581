package transport

import (
	"encoding/json"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/split"
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
	SplitAddress string                   `json:"splitAddress"`
	Recipients   *[]splitRecipientRequest `json:"recipients"`
}

// splitRecipientRequest is a recipient as sent: sharesBps is a JSON number, read as a whole
// number (wholeBps).
type splitRecipientRequest struct {
	Address   string      `json:"address"`
	SharesBps json.Number `json:"sharesBps"`
}

// wholeBps reads a share given as a JSON number: an integer, or a whole number written with a
// fraction or an exponent (9950.0, 5e3: what a client's float gives), as an order's qty and an
// item's stockQty are read. Anything else (a fraction, a number past 10,000 in any form) is 0,
// which the split rules refuse naming the recipient ("must be a positive integer up to 10000").
func wholeBps(n json.Number) int {
	v, err := money.WholeNumber(n.String())
	if err != nil {
		return 0
	}
	return int(max(min(v, split.TotalBps+1), 0))
}

func (s *Server) postSplit(c echo.Context) error {
	var req splitRequest
	if err := DecodeJSON(c, &req); err != nil {
		return err
	}
	var recipients *[]commands.SplitRecipient
	if req.Recipients != nil {
		rs := make([]commands.SplitRecipient, len(*req.Recipients))
		for i, r := range *req.Recipients {
			rs[i] = commands.SplitRecipient{Address: r.Address, SharesBps: wholeBps(r.SharesBps)}
		}
		recipients = &rs
	}
	sess, _ := SessionFrom(c)
	if err := s.limitSplitDeploy(c, sess.Wallet, req); err != nil {
		return err
	}
	res, err := s.cmd.ConfigureSplit.Handle(c.Request().Context(), commands.ConfigureMerchantSplit{Merchant: sess.Wallet,
		Address: req.SplitAddress, Recipients: recipients, Meta: s.metadata(c, sess.Wallet)})
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
