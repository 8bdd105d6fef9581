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

// TestQuoteTokenHeldInWindow: the ETH quote of a receipt with a payment window is honoured until
// the window ends: asking again returns it, whatever the price did; after the end, no quote.
func TestQuoteTokenHeldInWindow(t *testing.T) {
	t.Parallel()
	e := newPayEnv(t)
	total := money.Cents(5001)
	g := receipt.Generated{ReceiptID: commands.NewReceiptID(e.at), Merchant: payMerchant, Source: "direct", Currency: "USD", TaxRate: "0",
		TaxComponents: []string{}, LineItems: []receipt.LineItem{{Kind: receipt.KindCustom, Label: "Order", Amount: total}},
		Subtotal: total, Total: total, ExpiresAt: e.at.Add(time.Hour).UnixMilli()}
	if _, _, err := commands.GenerateReceipt(e.ctx, e.store, e.at, eventstore.Metadata{}, g); err != nil {
		t.Fatal(err)
	}
	at := e.at
	now := func() time.Time { return at }
	quote := func(price string) (commands.TokenQuoted, error) {
		return commands.NewQuoteTokenHandler(e.store, priceTable{"ETH": price}, now).Handle(e.ctx, commands.QuoteToken{ReceiptID: g.ReceiptID, Token: "ETH"})
	}
	q, err := quote("2500.5")
	if err != nil || q.Quote.Amount != "0.02000000" || q.Quote.ValidUntil != g.ExpiresAt {
		t.Fatalf("first quote %+v %v", q.Quote, err)
	}
	at = at.Add(59 * time.Minute)
	if q, err := quote("5001"); err != nil || q.Quote.Amount != "0.02000000" || q.Quote.ValidUntil != g.ExpiresAt {
		t.Fatalf("quote again in the window: %+v %v", q.Quote, err)
	}
	if h := e.history(g.ReceiptID); h != "ReceiptGenerated,TokenQuoted" {
		t.Fatalf("history %s: the held quote was recorded again", h)
	}
	at = at.Add(time.Minute)
	if _, err := quote("5001"); !errors.Is(err, receipt.ErrState) {
		t.Fatalf("quote after the window: %v", err)
	}
}
