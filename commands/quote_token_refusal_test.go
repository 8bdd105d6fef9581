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

// TestQuoteRefusalBeforePrice (stop 62): a quote of a paid receipt is receipt.ErrState whatever
// the price source's state, and a receipt's held quote is returned while the token has no price.
// Both were price_unavailable (503) when the token had no price or the source was down: the
// price was read before the receipt's own answer, so a price outage hid "already paid".
func TestQuoteRefusalBeforePrice(t *testing.T) {
	t.Parallel()
	e := newPayEnv(t)
	outages := map[string]commands.Prices{"no ETH price": priceTable{"EUR": "1.1"}, "unreadable": failingPrices{}}
	usd := e.receipt(payMerchant, "USD", 100)
	e.paid(usd)
	for name, prices := range outages {
		_, err := commands.NewQuoteTokenHandler(e.store, prices, e.now).Handle(e.ctx, commands.QuoteToken{ReceiptID: usd, Token: "ETH"})
		if !errors.Is(err, receipt.ErrState) {
			t.Fatalf("paid receipt, %s: %v, want receipt.ErrState", name, err)
		}
	}
	// A receipt with a payment window holds its ETH quote: a price outage does not hide it.
	total := money.Cents(5001)
	g := receipt.Generated{ReceiptID: commands.NewReceiptID(e.at), Merchant: payMerchant, Source: "direct", Currency: "USD", TaxRate: "0",
		TaxComponents: []string{}, LineItems: []receipt.LineItem{{Kind: receipt.KindCustom, Label: "Order", Amount: total}},
		Subtotal: total, Total: total, ExpiresAt: e.at.Add(time.Hour).UnixMilli()}
	if _, _, err := commands.GenerateReceipt(e.ctx, e.store, e.at, eventstore.Metadata{}, g); err != nil {
		t.Fatal(err)
	}
	now := func() time.Time { return e.at.Add(time.Minute) }
	first, err := commands.NewQuoteTokenHandler(e.store, priceTable{"ETH": "2500.5"}, now).Handle(e.ctx, commands.QuoteToken{ReceiptID: g.ReceiptID, Token: "ETH"})
	if err != nil || first.Quote.Amount != "0.02000000" {
		t.Fatalf("first quote %+v %v", first.Quote, err)
	}
	for name, prices := range outages {
		q, err := commands.NewQuoteTokenHandler(e.store, prices, now).Handle(e.ctx, commands.QuoteToken{ReceiptID: g.ReceiptID, Token: "ETH"})
		if err != nil || q.Quote != first.Quote {
			t.Fatalf("held quote, %s: %+v %v, want %+v", name, q.Quote, err, first.Quote)
		}
	}
	// Without a held quote, the price is still needed.
	_, err = commands.NewQuoteTokenHandler(e.store, priceTable{}, now).Handle(e.ctx, commands.QuoteToken{ReceiptID: g.ReceiptID, Token: "cbBTC"})
	if !errors.Is(err, commands.ErrPriceUnavailable) {
		t.Fatalf("a new quote without a price: %v", err)
	}
}
