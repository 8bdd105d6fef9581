package commands_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
)

// brands is a PricingSource that knows each merchant's brand.
type brands map[string]string

func (b brands) Pricing(_ context.Context, merchant string) (commands.MerchantPricing, error) {
	return commands.MerchantPricing{BrandName: b[merchant], BrandKey: strings.ToLower(b[merchant])}, nil
}

func TestTerminalDisplay(t *testing.T) {
	t.Parallel()
	e := newPayEnv(t)
	h := commands.NewTerminalHandler(e.store, brands{payMerchant: "Cafe"}, e.now)
	for _, c := range []struct {
		name, amount, label, message string
	}{
		{"no amount", "", "x", "amountUsd is required"},
		{"zero", "0", "x", "amountUsd must be a positive amount with at most 2 decimals"},
		{"negative", "-1", "x", "amountUsd must be a positive amount"},
		{"three decimals", "1.001", "x", "amountUsd must be a positive amount"},
		{"long label", "1", strings.Repeat("l", 201), "label must be at most 200 characters"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := h.Display(e.ctx, commands.TerminalDisplay{Merchant: payMerchant, AmountUSD: c.amount, Label: c.label})
			wantRefusal(t, err, "invalid_input", c.message)
		})
	}
	// The bound is in characters: 200 of three bytes each is a label.
	if _, err := h.Display(e.ctx, commands.TerminalDisplay{Merchant: payMerchant, AmountUSD: "1", Label: strings.Repeat("茶", 200)}); err != nil {
		t.Fatalf("a label of 200 characters: %v", err)
	}
	out, err := h.Display(e.ctx, commands.TerminalDisplay{Merchant: payMerchant, AmountUSD: "7.25", Label: "  "})
	if err != nil {
		t.Fatal(err)
	}
	g := out.State.Receipt
	if !strings.HasPrefix(g.ReceiptID, "rcpt_") || g.Merchant != payMerchant || g.Source != "terminal" || g.Currency != "USD" || g.Total != money.Cents(725) ||
		len(g.LineItems) != 1 || g.LineItems[0].Label != "Payment" || g.LineItems[0].Kind != receipt.KindCustom || g.BrandName != "Cafe" || g.BrandKey != "cafe" ||
		out.State.Status != receipt.StatusGenerated || out.Result.Version != 1 {
		t.Fatalf("displayed %+v", out)
	}
	if e.state(g.ReceiptID).Receipt.Total != 725 {
		t.Fatal("the displayed receipt is not stored")
	}
}

func TestTerminalComplete(t *testing.T) {
	t.Parallel()
	e := newPayEnv(t)
	h := commands.NewTerminalHandler(e.store, brands{}, e.now)
	id := e.receipt(payMerchant, "USD", 725)
	_, err := h.Complete(e.ctx, commands.TerminalComplete{Merchant: payMerchant, ReceiptID: id, Method: "card"})
	wantRefusal(t, err, "invalid_input", `method must be "cash"`)
	if _, err := h.Complete(e.ctx, commands.TerminalComplete{Merchant: payOther, ReceiptID: id, Method: "cash"}); !errors.Is(err, receipt.ErrNotFound) {
		t.Fatalf("another merchant completing: %v", err)
	}
	out, err := h.Complete(e.ctx, commands.TerminalComplete{Merchant: payMerchant, ReceiptID: id, Method: "cash"})
	if err != nil {
		t.Fatal(err)
	}
	p := out.State.Payment
	if out.State.Status != receipt.StatusPaid || p.VerifiedBy != "merchant" || p.Method != "cash" || p.Token != "USD" || p.AttemptID != out.State.CurrentAttempt {
		t.Fatalf("completed: %s %+v", out.State.Status, p)
	}
	if h := e.history(id); h != "ReceiptGenerated,PaymentAttemptStarted,PaymentConfirmed" {
		t.Fatalf("history %s", h)
	}
	// Once paid, completing again cannot start another attempt.
	if _, err := h.Complete(e.ctx, commands.TerminalComplete{Merchant: payMerchant, ReceiptID: id, Method: "cash"}); !errors.Is(err, receipt.ErrState) {
		t.Fatalf("second completion: %v", err)
	}
}
