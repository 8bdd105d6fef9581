package settlement_test

import (
	"context"
	"math/big"
	"testing"
	"time"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
)

// staticPrices is a price source that always has the same prices.
type staticPrices map[string]string

func (p staticPrices) USDPrices(context.Context) (map[string]string, error) { return p, nil }

// TestDepositETHBeforeAQuoteIsValued is issue 36 item 1 on the chain: 0.0042 ETH sent to a
// 12.31 USD receipt's deposit before anyone quoted ETH, at ETH = 3,000 USD (0.00410333 due). The
// detector values the transfer when it first sees it (a TokenQuoted at 3,000, recorded before the
// transfer) and the confirmation pays the receipt. Without a price source the receipt stays
// pending; the page's quote in ETH then pays it instead of asking for 0 more.
func TestDepositETHBeforeAQuoteIsValued(t *testing.T) {
	t.Parallel()
	e := newDepositEnv(t)
	priced := e.receipt(1231)
	withPrices := e.detector()
	withPrices.Prices = staticPrices{"ETH": "3000"}
	e.step(withPrices)
	e.mined(e.payETH(priced.DepositAddress(), big.NewInt(42e14)))
	for range 3 {
		e.commit()
		e.step(withPrices)
	}
	st := e.want(priced.Receipt.ReceiptID, receipt.StatusPaid, "0.0042")
	if st.Quotes["ETH"] != "0.00410333" || st.HeldQuotes["ETH"].TokenUSDPrice != "3000" {
		t.Fatalf("valued at %q (%+v), want the quote of 3,000 USD", st.Quotes["ETH"], st.HeldQuotes["ETH"])
	}
	// Another receipt's transfer, seen by a detector without prices: credited, not valued.
	unpriced := e.receipt(1231)
	without := e.detector()
	without.Name = "deposits-unpriced"
	e.step(without)
	e.mined(e.payETH(unpriced.DepositAddress(), big.NewInt(42e14)))
	for range 3 {
		e.commit()
		e.step(without)
	}
	if st := e.state(unpriced.Receipt.ReceiptID); st.Status != receipt.StatusPending || len(st.Credits) != 1 || !st.Credits[0].Counts() {
		t.Fatalf("without a price: %s, credits %+v", st.Status, st.Credits)
	}
	quote := commands.NewQuoteTokenHandler(e.store, staticPrices{"ETH": "3000"}, time.Now)
	q, err := quote.Handle(e.ctx, commands.QuoteToken{ReceiptID: unpriced.Receipt.ReceiptID, Token: "ETH", Meta: eventstore.Metadata{Actor: "customer"}})
	e.ok(err)
	if st := e.state(unpriced.Receipt.ReceiptID); q.Quote.Amount != "0.00410333" || st.Status != receipt.StatusPaid || st.Payment.VerifiedBy != receipt.VerifiedByChain {
		t.Fatalf("after the ETH quote %s: %s, payment %+v", q.Quote.Amount, st.Status, st.Payment)
	}
}
