package transport

import (
	"encoding/json"
	"net/http"
	"slices"

	"github.com/labstack/echo/v4"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/readmodels"
)

type refundRequest struct {
	ReceiptID       string      `json:"receiptId"`
	AmountUSD       json.Number `json:"amountUsd"`
	Reason          string      `json:"reason"`
	TransactionHash string      `json:"transactionHash"`
	RefundTo        string      `json:"refundTo"`
	// UnknownTransfer names the unconfigured token's transfer the refund returns (issue 41).
	UnknownTransfer *unknownTransferRef `json:"unknownTransfer"`
	// Excess: the refund returns what the customer sent beyond the total, apart from the order's
	// refunds (stop 70; a transactionHash required).
	Excess bool `json:"excess"`
	// ProcessorPayment: the refund returns card or bank payments the processor collected and the
	// receipt does not count (processorPaymentsToRefund), apart from the order (stop 71; a
	// transactionHash required).
	ProcessorPayment bool `json:"processorPayment"`
}

type unknownTransferRef struct {
	TransactionHash string `json:"transactionHash"`
	LogIndex        *int   `json:"logIndex"`
}

// unknownRef is the command's reference to the transfer (nil without one). Errors: Invalid.
func (r refundRequest) unknownRef() (*receipt.UnknownTransferRef, error) {
	if r.UnknownTransfer == nil {
		return nil, nil
	}
	if r.UnknownTransfer.LogIndex == nil {
		return nil, InvalidInput("unknownTransfer needs its transactionHash and logIndex")
	}
	return &receipt.UnknownTransferRef{TransactionHash: r.UnknownTransfer.TransactionHash, LogIndex: *r.UnknownTransfer.LogIndex}, nil
}

func (s *Server) refund(c echo.Context) error {
	var req refundRequest
	if err := DecodeJSON(c, &req); err != nil {
		return err
	}
	unknown, err := req.unknownRef()
	if err != nil {
		return err
	}
	sess, _ := SessionFrom(c)
	ctx := c.Request().Context()
	out, err := s.cmd.Refund.Handle(ctx, commands.Refund{ReceiptID: req.ReceiptID, AmountUSD: req.AmountUSD.String(), Reason: req.Reason,
		TransactionHash: req.TransactionHash, RefundTo: req.RefundTo, Unknown: unknown, Excess: req.Excess, ProcessorPayment: req.ProcessorPayment, By: sess.Wallet, Admin: slices.Contains(sess.Roles, RoleAdmin), Meta: s.metadata(c, sess.Wallet)})
	if err != nil {
		return err
	}
	s.waitChanges(ctx, commands.ReceiptChange{ReceiptID: req.ReceiptID, Result: out.Result})
	st := out.State
	// unrefundedUsd is what may still be refunded: a failed receipt's funds less what is refunded
	// or claimed of them, not its total less refunds (RefundableCents; the same as Unrefunded for
	// a settled receipt). unrefundedExcessUsd is what of the excess may still be refunded apart
	// (stop 70). processorRefundedUsd is what was refunded of the processor payments the receipt
	// does not count, processorToRefundUsd what of them (of known amount) is still owed (stop 71).
	p := readmodels.RefundsPayloadOf(st)
	return c.JSON(http.StatusOK, map[string]any{"ok": true, "receiptId": req.ReceiptID, "status": string(st.Status),
		"refundedUsd": st.OrderRefundedCents().Float(), "requestedRefundUsd": st.OrderRequestedCents().Float(), "unrefundedUsd": money.Cents(st.RefundableCents()).Float(),
		"refundedExcessUsd": st.RefundedExcessCents().Float(), "unrefundedExcessUsd": money.Cents(st.ExcessUnrefundedCents()).Float(),
		"processorPaymentsToRefund": p.ProcessorPaymentsToRefund, "processorToRefundUsd": p.ProcessorToRefundUSD, "processorRefundedUsd": p.ProcessorRefundedUSD,
		"refunds": p.Refunds})
}

type terminalRequest struct {
	Action    string      `json:"action"`
	AmountUSD json.Number `json:"amountUsd"`
	Label     string      `json:"label"`
	ReceiptID string      `json:"receiptId"`
	Method    string      `json:"method"`
}

func (s *Server) terminal(c echo.Context) error {
	var req terminalRequest
	if err := DecodeJSON(c, &req); err != nil {
		return err
	}
	sess, _ := SessionFrom(c)
	ctx, meta := c.Request().Context(), s.metadata(c, sess.Wallet)
	switch req.Action {
	case "display":
		out, err := s.cmd.DisplayTerminal.Handle(ctx, commands.TerminalDisplay{Merchant: sess.Wallet, AmountUSD: req.AmountUSD.String(), Label: req.Label, Meta: meta})
		if err != nil {
			return err
		}
		id := out.State.Receipt.ReceiptID
		if err := s.waitReadable(ctx, id, out.Result); err != nil {
			return err
		}
		return c.JSON(http.StatusOK, map[string]any{"ok": true, "receipt": viewReceipt(out.State), "paymentUrl": s.cfg.PublicBaseURL + "/pay/" + id})
	case "complete":
		out, err := s.cmd.CompleteTerminal.Handle(ctx, commands.TerminalComplete{Merchant: sess.Wallet, ReceiptID: req.ReceiptID, Method: req.Method, Meta: meta})
		if err != nil {
			return err
		}
		s.waitChanges(ctx, commands.ReceiptChange{ReceiptID: req.ReceiptID, Result: out.Result})
		return c.JSON(http.StatusOK, map[string]any{"ok": true, "receipt": viewReceipt(out.State)})
	}
	return InvalidInput(`action must be "display" or "complete"`)
}

func (s *Server) checkPayment(c echo.Context) error {
	c.Response().Header().Set("Cache-Control", "no-store")
	id := c.QueryParam("receiptId")
	if id == "" {
		return InvalidInput("receiptId is required")
	}
	row, err := s.anyReceipt(c, id)
	if err != nil {
		return err
	}
	st := row.State.Status
	paid := st == receipt.StatusPaid || st == receipt.StatusReconciled
	return c.JSON(http.StatusOK, map[string]any{"receiptId": id, "status": string(st), "paid": paid})
}
