package commands_test

import (
	"errors"
	"testing"
	"time"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/settlement/pgstore"
)

// windowedReceipt is a 3.00 USD receipt whose window ends an hour after the test clock's now.
func windowedReceipt(t *testing.T, rc reconcileEnv) (id string, end time.Time) {
	t.Helper()
	total := money.Cents(300)
	end = rc.clk.now().Add(time.Hour)
	g := receipt.Generated{ReceiptID: commands.NewReceiptID(rc.clk.now()), Merchant: payMerchant, Source: "direct", Currency: "USD", TaxRate: "0",
		TaxComponents: []string{}, LineItems: []receipt.LineItem{{Kind: receipt.KindCustom, Label: "Order", Amount: total}},
		Subtotal: total, Total: total, ExpiresAt: end.UnixMilli()}
	if _, _, err := commands.GenerateReceipt(rc.ctx, rc.store, rc.clk.now(), eventstore.Metadata{}, g); err != nil {
		t.Fatal(err)
	}
	return g.ReceiptID, end
}

// TestStartsAndQuotesAreJudgedByTheDatabasesClock (stop 73): the window's passes and the
// reconciliation judge the window's end by the database's clock, but a start of an onramp session
// and a quote judged it by the instance's: an instance whose clock ran 2 s behind the database's
// started a session and recorded a quote 1 s after the database's end. Judged by the database's
// clock (JudgedBy), both are refused there; an instance 2 s ahead, 1 s before the database's
// end, still starts and quotes.
func TestStartsAndQuotesAreJudgedByTheDatabasesClock(t *testing.T) {
	t.Parallel()
	rc := newReconcileEnv(t)
	db := pgstore.NewReceipts(rc.pool)
	for _, c := range skewedInstances {
		t.Run(c.name, func(t *testing.T) {
			started, endA := windowedReceipt(t, rc)
			quoted, _ := windowedReceipt(t, rc)
			rc.clk.advance(endA.Sub(rc.clk.now()) + c.at)
			start := commands.NewStartOnrampHandler(rc.store, commands.NewSplits(rc.store), rc.proc, noPrices{}, rc.clk.now).JudgedBy(db, offBy(c.skew))
			_, err := start.Handle(rc.ctx, commands.StartOnramp{ReceiptID: started})
			if refused := errors.Is(err, receipt.ErrState); refused == c.open || !refused && err != nil {
				t.Fatalf("start: %v, want the window open %v (%s)", err, c.open, rc.pay.history(started))
			}
			quote := commands.NewQuoteTokenHandler(rc.store, priceTable{"ETH": "2500"}, rc.clk.now).JudgedBy(db, offBy(c.skew))
			_, err = quote.Handle(rc.ctx, commands.QuoteToken{ReceiptID: quoted, Token: "ETH"})
			if refused := errors.Is(err, receipt.ErrState); refused == c.open || !refused && err != nil {
				t.Fatalf("quote: %v, want the window open %v (%s)", err, c.open, rc.pay.history(quoted))
			}
		})
	}
}
