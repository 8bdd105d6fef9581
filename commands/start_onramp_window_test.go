package commands_test

import (
	"errors"
	"testing"
	"time"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
)

// A card or bank payment starts only inside the payment window. The start checked the recorded
// expiry alone, which the window process writes up to a few seconds after the end (longer while
// it is behind or down): a start at the second of the end, or in that gap, opened a processor
// session, and an open onramp attempt holds the window, so the receipt was never failed and the
// customer paid an order the merchant had given up, at the first quote's EUR rate. A start at or
// after ExpiresAt is now receipt.ErrState, before any session is asked for; a second earlier
// starts as before.
func TestStartOnrampRefusedAtTheWindowsEnd(t *testing.T) {
	t.Parallel()
	e := newPayEnv(t)
	e.configureSplit(payMerchant)
	total := money.Cents(1250)
	g := receipt.Generated{ReceiptID: commands.NewReceiptID(e.at), Merchant: payMerchant, Source: "direct", Currency: "USD", TaxRate: "0",
		TaxComponents: []string{}, LineItems: []receipt.LineItem{{Kind: receipt.KindCustom, Label: "Order", Amount: total}},
		Subtotal: total, Total: total, ExpiresAt: e.at.Add(time.Hour).UnixMilli()}
	if _, _, err := commands.GenerateReceipt(e.ctx, e.store, e.at, eventstore.Metadata{}, g); err != nil {
		t.Fatal(err)
	}
	at := time.UnixMilli(g.ExpiresAt)
	f := newFakeProcessor()
	start := commands.NewStartOnrampHandler(e.store, commands.NewSplits(e.store), f, noPrices{}, func() time.Time { return at })
	before := e.history(g.ReceiptID)
	if _, err := start.Handle(e.ctx, commands.StartOnramp{ReceiptID: g.ReceiptID}); !errors.Is(err, receipt.ErrState) {
		t.Fatalf("a start at the window's end: %v, want ErrState", err)
	}
	if f.creates() != 0 || e.history(g.ReceiptID) != before {
		t.Fatalf("a start at the window's end made %d sessions; history %s", f.creates(), e.history(g.ReceiptID))
	}
	if evs, err := receipt.Expire(e.state(g.ReceiptID), at.UnixMilli(), time.Hour); err != nil || len(evs) != 1 {
		t.Fatalf("the window did not end: %v %v", evs, err)
	}
	at = at.Add(-time.Millisecond)
	if _, err := start.Handle(e.ctx, commands.StartOnramp{ReceiptID: g.ReceiptID}); err != nil || f.creates() != 1 {
		t.Fatalf("a start inside the window: %v (%d sessions)", err, f.creates())
	}
}
