package projections_test

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/projections"
)

// TestXPOfALegacyRateIsBounded: a shop configuration stored before xpPerDollar was bounded
// (10,000) may hold 1e300; its receipts wrapped floor(totalUsd × rate) around an int64 into
// arbitrary (here negative) XP, and a buyer's XP past bigint failed the projector's batch, which
// it retried for ever: nobody's XP moved again. Now such a rate counts as 10,000 and a buyer's
// XP stops at the largest bigint.
func TestXPOfALegacyRateIsBounded(t *testing.T) {
	t.Parallel()
	if got := projections.XPFor(100, "USD", "", "1e300"); got != projections.MaxXPPerDollar {
		t.Fatalf("1 USD at a legacy rate of 1e300: %d XP, want %d", got, projections.MaxXPPerDollar)
	}
	if got := projections.XPFor(math.MaxInt64, "EUR", "1e300", "10000"); got != math.MaxInt64 {
		t.Fatalf("a product past an int64: %d XP", got)
	}

	pool, s := setup(t)
	ctx := context.Background()
	legacy, other := "0x"+strings.Repeat("4", 40), "0x"+strings.Repeat("5", 40)
	rich, buyer := "0x"+strings.Repeat("c", 40), "0x"+strings.Repeat("d", 40)
	if _, err := pool.Exec(ctx, `INSERT INTO shop_configs (wallet, config) VALUES ($1, '{"xpPerDollar": 1e300}')`, legacy); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO users (wallet, xp) VALUES ($1, 9223372036854775800)`, rich); err != nil {
		t.Fatal(err)
	}
	paid := func(id, merchant, wallet string, cents int64) {
		appendReceiptEvent(t, s, id, receipt.Generated{ReceiptID: id, Merchant: merchant, Source: "direct", Currency: "USD", Total: money.Cents(cents),
			LineItems: []receipt.LineItem{{Kind: receipt.KindItem, Label: "x", Amount: money.Cents(cents), Unit: money.Cents(cents), Qty: 1}}, CreatedAt: 1})
		appendReceiptEvent(t, s, id, receipt.PaymentConfirmed{AttemptID: "a-" + id, BuyerWallet: wallet, VerifiedBy: "chain", At: 2})
	}
	paid("legacy-1", legacy, buyer, 1000) // 10 USD at 1e300 (counted as 10,000) -> 100,000
	paid("legacy-2", other, rich, 5000)   // 50 XP more than bigint holds
	paid("legacy-3", other, buyer, 700)   // a later receipt, credited as usual -> 7
	last := appendReceiptEvent(t, s, "legacy-3", receipt.TokenQuoted{Token: "USDC", Amount: "7", TokenUSDPrice: "1", AmountUSD: "7.00", At: 3})
	r, _ := start(t, pool, s, projections.NewUsers(s))
	waitFor(t, r, last)
	if got := xpOf(t, pool, buyer); got != 100_007 {
		t.Fatalf("buyer: %d XP, want 100007", got)
	}
	if got := xpOf(t, pool, rich); got != math.MaxInt64 {
		t.Fatalf("a buyer past bigint: %d XP, want the largest bigint", got)
	}
}
