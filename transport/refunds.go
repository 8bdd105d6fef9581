package transport

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
)

type refundRequest struct {
	ReceiptID       string       `json:"receiptId"`
	AmountUSD       *json.Number `json:"amountUsd"`
	Reason          string       `json:"reason"`
	TransactionHash string       `json:"transactionHash"`
}

func (s *Server) refund(c echo.Context) error {
	var req refundRequest
	if err := DecodeJSON(c, &req); err != nil {
		return err
	}
	if req.ReceiptID == "" || strings.TrimSpace(req.Reason) == "" || len(req.Reason) > 500 {
		return InvalidInput("receiptId and a reason (up to 500 characters) are required")
	}
	if req.TransactionHash != "" && !txHashRE.MatchString(req.TransactionHash) {
		return InvalidInput("transactionHash must be 0x followed by 64 hex characters")
	}
	var amount int64
	if req.AmountUSD != nil {
		c, err := money.ParseCents(req.AmountUSD.String())
		if err != nil || c == 0 {
			return InvalidInput("amountUsd must be a positive amount with at most 2 decimals")
		}
		amount = int64(c)
	}
	sess, _ := SessionFrom(c)
	admin := slices.Contains(sess.Roles, RoleAdmin)
	st, res, err := commands.ChangeReceipt(c.Request().Context(), s.events, req.ReceiptID, s.metadata(c, sess.Wallet), func(st receipt.State) ([]receipt.Event, error) {
		if st.Receipt.Merchant != sess.Wallet && !admin {
			return nil, receipt.ErrNotFound // another merchant's receipt is not there for this caller
		}
		return receipt.Refund(st, amount, req.Reason, strings.ToLower(req.TransactionHash), sess.Wallet, s.now().UnixMilli())
	})
	if err != nil {
		return receiptErr(err)
	}
	_ = s.waitReadable(c.Request().Context(), req.ReceiptID, res)
	return c.JSON(http.StatusOK, map[string]any{"ok": true, "receiptId": req.ReceiptID, "status": string(st.Status),
		"refundedUsd": st.RefundedCents.Float(), "requestedRefundUsd": st.RequestedCents.Float(), "unrefundedUsd": money.Cents(st.Unrefunded()).Float()})
}

type terminalRequest struct {
	Action    string       `json:"action"`
	AmountUSD *json.Number `json:"amountUsd"`
	Label     string       `json:"label"`
	ReceiptID string       `json:"receiptId"`
	Method    string       `json:"method"`
}

func (s *Server) terminal(c echo.Context) error {
	var req terminalRequest
	if err := DecodeJSON(c, &req); err != nil {
		return err
	}
	sess, _ := SessionFrom(c)
	ctx := c.Request().Context()
	switch req.Action {
	case "display":
		if req.AmountUSD == nil {
			return InvalidInput("amountUsd is required")
		}
		amount, err := money.ParseCents(req.AmountUSD.String())
		if err != nil || amount == 0 {
			return InvalidInput("amountUsd must be a positive amount with at most 2 decimals")
		}
		label := strings.TrimSpace(req.Label)
		if label == "" {
			label = "Payment"
		}
		if len(label) > 200 {
			return InvalidInput("label must be at most 200 characters")
		}
		mp, err := s.pricingFor(ctx, sess.Wallet)
		if err != nil {
			return err
		}
		g := receipt.Generated{ReceiptID: commands.NewReceiptID(s.now()), Merchant: sess.Wallet, Source: "terminal", Currency: "USD", TaxRate: "0",
			TaxComponents: []string{}, BrandName: mp.BrandName, BrandKey: mp.BrandKey, LineItems: []receipt.LineItem{{Kind: receipt.KindCustom, Label: label, Amount: amount}},
			Subtotal: amount, Total: amount}
		st, res, err := commands.GenerateReceipt(ctx, s.events, s.now(), s.metadata(c, sess.Wallet), g)
		if err != nil {
			return err
		}
		if err := s.waitReadable(ctx, g.ReceiptID, res); err != nil {
			return err
		}
		return c.JSON(http.StatusOK, map[string]any{"ok": true, "receipt": viewReceipt(st), "paymentUrl": s.cfg.PublicBaseURL + "/pay/" + g.ReceiptID})
	case "complete":
		if req.Method != "cash" {
			return InvalidInput(`method must be "cash"`)
		}
		attemptID := newAttemptID()
		now := s.now().UnixMilli()
		st, res, err := commands.ChangeReceipt(ctx, s.events, req.ReceiptID, s.metadata(c, sess.Wallet), func(st receipt.State) ([]receipt.Event, error) {
			if st.Receipt.Merchant != sess.Wallet {
				return nil, receipt.ErrNotFound
			}
			evs, err := receipt.StartAttempt(st, receipt.AttemptStarted{AttemptID: attemptID, Kind: "terminal", OpenedBy: "merchant", At: now})
			return commands.Then(st, evs, err, func(st receipt.State) ([]receipt.Event, error) {
				return receipt.Confirm(st, receipt.PaymentConfirmed{AttemptID: attemptID, VerifiedBy: "merchant", Method: "cash", Token: "USD", At: now})
			})
		})
		if err != nil {
			return receiptErr(err)
		}
		_ = s.waitReadable(ctx, req.ReceiptID, res)
		return c.JSON(http.StatusOK, map[string]any{"ok": true, "receipt": viewReceipt(st)})
	}
	return InvalidInput(`action must be "display" or "complete"`)
}

func (s *Server) checkPayment(c echo.Context) error {
	c.Response().Header().Set("Cache-Control", "no-store")
	id := c.QueryParam("receiptId")
	if id == "" {
		return InvalidInput("receiptId is required")
	}
	row, err := s.receipts.Get(c.Request().Context(), "", id)
	if err != nil {
		return receiptErr(notFound(err))
	}
	st := row.State.Status
	paid := st == receipt.StatusPaid || st == receipt.StatusReconciled
	return c.JSON(http.StatusOK, map[string]any{"receiptId": id, "status": string(st), "paid": paid})
}
