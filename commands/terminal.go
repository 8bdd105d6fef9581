package commands

import (
	"context"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/domain/text"
	"github.com/payledger/payledger/eventstore"
)

// The point-of-sale terminal: the merchant shows an amount to pay (a receipt of one custom line),
// and may complete it as paid in cash, on their own attestation.

// TerminalDisplay issues a receipt of one amount for the terminal's screen.
type TerminalDisplay struct {
	Merchant  string
	AmountUSD string // required
	Label     string // "": "Payment"
	Meta      eventstore.Metadata
}

// TerminalComplete records that the merchant was paid a terminal receipt in cash.
type TerminalComplete struct {
	Merchant  string
	ReceiptID string
	Method    string // only "cash"
	Meta      eventstore.Metadata
}

// TerminalReceipt is a receipt after a terminal command.
type TerminalReceipt struct {
	State  receipt.State
	Result eventstore.AppendResult
}

// TerminalHandler runs the terminal's commands.
type TerminalHandler struct {
	store   Store
	pricing PricingSource
	now     func() time.Time
}

// NewTerminalHandler returns the handler; pricing gives the merchant's brand. It panics on a nil
// dependency.
func NewTerminalHandler(store Store, pricing PricingSource, now func() time.Time) *TerminalHandler {
	if store == nil || pricing == nil || now == nil {
		panic("commands.NewTerminalHandler: nil dependency")
	}
	return &TerminalHandler{store: store, pricing: pricing, now: now}
}

// maxTerminalLabel is the longest label of a terminal receipt's line.
const maxTerminalLabel = 200

// Display generates a USD receipt of the amount, untaxed and without fees, in the merchant's
// brand. Errors: Invalid, wrapped store errors.
func (h *TerminalHandler) Display(ctx context.Context, cmd TerminalDisplay) (TerminalReceipt, error) {
	if cmd.AmountUSD == "" {
		return TerminalReceipt{}, Invalid("amountUsd is required")
	}
	amount, err := money.ParseCents(cmd.AmountUSD)
	if err != nil || amount == 0 {
		return TerminalReceipt{}, Invalid(msgAmount)
	}
	label := strings.TrimSpace(cmd.Label)
	if label == "" {
		label = "Payment"
	}
	if utf8.RuneCountInString(label) > maxTerminalLabel { // characters, as the message says
		return TerminalReceipt{}, Invalidf("label must be at most %d characters", maxTerminalLabel)
	}
	if strings.IndexFunc(label, text.Reorders) >= 0 {
		return TerminalReceipt{}, Invalid("label must not contain control characters")
	}
	mp, err := h.pricing.Pricing(ctx, cmd.Merchant)
	if err != nil {
		return TerminalReceipt{}, err
	}
	now := h.now()
	g := receipt.Generated{ReceiptID: NewReceiptID(now), Merchant: cmd.Merchant, Source: "terminal", Currency: "USD", TaxRate: "0",
		TaxComponents: []string{}, BrandName: mp.BrandName, BrandKey: mp.BrandKey, DefaultToken: mp.DefaultToken,
		LineItems: []receipt.LineItem{{Kind: receipt.KindCustom, Label: label, Amount: amount}}, Subtotal: amount, Total: amount}
	st, res, err := GenerateReceipt(ctx, h.store, now, cmd.Meta, g)
	if err != nil {
		return TerminalReceipt{}, err
	}
	return TerminalReceipt{State: st, Result: res}, nil
}

// Complete starts a terminal attempt and confirms it paid in cash, verified by the merchant, in
// one append. Only the receipt's merchant may (another's receipt is not there for them). Errors:
// Invalid (a method other than cash), receipt.ErrNotFound, receipt.ErrState, ErrContended,
// wrapped store errors.
func (h *TerminalHandler) Complete(ctx context.Context, cmd TerminalComplete) (TerminalReceipt, error) {
	if cmd.Method != "cash" {
		return TerminalReceipt{}, Invalid(`method must be "cash"`)
	}
	attemptID := newAttemptID()
	now := h.now().UnixMilli()
	st, res, err := ChangeReceipt(ctx, h.store, cmd.ReceiptID, cmd.Meta, func(st receipt.State) ([]receipt.Event, error) {
		if st.Receipt.Merchant != cmd.Merchant {
			return nil, receipt.ErrNotFound
		}
		evs, err := receipt.StartAttempt(st, receipt.AttemptStarted{AttemptID: attemptID, Kind: "terminal", OpenedBy: "merchant", At: now})
		return receipt.Then(st, evs, err, func(st receipt.State) ([]receipt.Event, error) {
			return receipt.Confirm(st, receipt.PaymentConfirmed{AttemptID: attemptID, VerifiedBy: "merchant", Method: "cash", Token: "USD", At: now})
		})
	})
	if err != nil {
		return TerminalReceipt{}, err
	}
	return TerminalReceipt{State: st, Result: res}, nil
}
