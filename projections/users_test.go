package projections_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/projections"
)

func appendReceiptEvent(t *testing.T, s *postgres.Store, id string, e receipt.Event) eventstore.Position {
	t.Helper()
	data, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Append(context.Background(), projections.ReceiptStreamPrefix+id, eventstore.Any(),
		eventstore.EventData{ID: uuid.New(), Type: receipt.TypeOf(e), Data: data})
	if err != nil {
		t.Fatal(err)
	}
	return res.Position
}

func xpOf(t *testing.T, pool *pgxpool.Pool, wallet string) int64 {
	t.Helper()
	var xp int64
	if err := pool.QueryRow(context.Background(), `SELECT coalesce((SELECT xp FROM users WHERE wallet = $1), 0)`, wallet).Scan(&xp); err != nil {
		t.Fatal(err)
	}
	return xp
}

// TestUsersXPFromPaidAndRefundedReceipts: XP after paid (the merchant's rate, default 1, explicit
// 0, EUR at the quoted rate, credited once), after a partial and a full refund, and the same after
// a rebuild even when the merchant changed its rate since.
func TestUsersXPFromPaidAndRefundedReceipts(t *testing.T) {
	t.Parallel()
	pool, s := setup(t)
	ctx := context.Background()
	buyer := "0x" + strings.Repeat("b", 40)
	mixed := "0x" + strings.Repeat("B", 40)
	m1, m2, m3 := "0x"+strings.Repeat("1", 40), "0x"+strings.Repeat("2", 40), "0x"+strings.Repeat("3", 40)
	if _, err := pool.Exec(ctx, `INSERT INTO shop_configs (wallet, config) VALUES ($1, '{"xpPerDollar": 2.5}'), ($2, '{"xpPerDollar": 0}')`, m2, m3); err != nil {
		t.Fatal(err)
	}
	gen := func(id, merchant, currency string, total int64) {
		appendReceiptEvent(t, s, id, receipt.Generated{ReceiptID: id, Merchant: merchant, Source: "direct", Currency: currency,
			Total: money.Cents(total), LineItems: []receipt.LineItem{{Kind: receipt.KindItem, Label: "x", Amount: money.Cents(total), Unit: money.Cents(total), Qty: 1}}, CreatedAt: 1})
	}
	paid := func(id, wallet string) eventstore.Position {
		return appendReceiptEvent(t, s, id, receipt.PaymentConfirmed{AttemptID: "a-" + id, BuyerWallet: wallet, VerifiedBy: "chain", At: 2})
	}
	gen("r1", m1, "USD", 12345) // no shop config: 1 XP per dollar -> 123
	gen("r2", m2, "USD", 1000)  // 2.5 per dollar -> 25
	gen("r3", m3, "USD", 5000)  // explicit 0 -> none
	gen("r4", m1, "EUR", 1000)  // 10 EUR at 1.1 -> 11
	gen("r5", m1, "USD", 9900)  // paid without a buyer wallet -> none
	paid("r1", mixed)
	paid("r2", buyer)
	paid("r2", buyer) // a second confirmation credits nothing more
	paid("r3", buyer)
	appendReceiptEvent(t, s, "r4", receipt.PaymentSubmitted{AttemptID: "a-r4", Source: "wallet", BuyerWallet: mixed, At: 2})
	appendReceiptEvent(t, s, "r4", receipt.TokenQuoted{Token: "USDC", Amount: "11", TokenUSDPrice: "1", EURUSDRate: "1.1", AmountUSD: "11.00", At: 2})
	paid("r4", mixed) // the confirmation's wallet, whatever the hint named (TestXPGoesOnlyToAVerifiedPayer)
	last := paid("r5", "")
	r, stop := start(t, pool, s, projections.NewUsers(s))
	waitFor(t, r, last)
	if got := xpOf(t, pool, buyer); got != 123+25+11 {
		t.Fatalf("after paid: %d XP, want 159", got)
	}
	refund := func(id string, cents int64) eventstore.Position {
		return appendReceiptEvent(t, s, id, receipt.RefundProcessed{AmountCents: cents, Reason: "r", ProcessedBy: m1, At: 3})
	}
	waitFor(t, r, refund("r1", 345))
	if got := xpOf(t, pool, buyer); got != 159 {
		t.Fatalf("after a partial refund: %d XP, want 159", got)
	}
	last = refund("r1", 12000)
	waitFor(t, r, last)
	if got := xpOf(t, pool, buyer); got != 36 {
		t.Fatalf("after a full refund: %d XP, want 36", got)
	}
	waitFor(t, r, refund("r1", 1)) // nothing left to take back
	if got := xpOf(t, pool, buyer); got != 36 {
		t.Fatalf("after a refund past the total: %d XP, want 36", got)
	}

	// The merchant changes its rate; a rebuild still gives the XP of the log.
	if _, err := pool.Exec(ctx, `UPDATE shop_configs SET config = '{"xpPerDollar": 100}' WHERE wallet = $1`, m2); err != nil {
		t.Fatal(err)
	}
	stop()
	if err := projections.Rebuild(ctx, pool, projections.Users{}); err != nil {
		t.Fatal(err)
	}
	if got := xpOf(t, pool, buyer); got != 0 {
		t.Fatalf("after the reset: %d XP", got)
	}
	r, _ = start(t, pool, s, projections.NewUsers(s))
	waitFor(t, r, last)
	if got := xpOf(t, pool, buyer); got != 36 {
		t.Fatalf("after a rebuild: %d XP, want 36", got)
	}
}

func TestXPFor(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name                string
		cents               int64
		currency, eur, rate string
		want                int64
	}{
		{"floor", 12399, "USD", "", "1", 123},
		{"fractional rate", 1000, "USD", "", "2.5", 25},
		{"zero rate", 1000, "USD", "", "0", 0},
		{"under a dollar", 99, "USD", "", "1", 0},
		{"EUR at the quoted rate", 1000, "EUR", "1.1", "1", 11},
		{"EUR without a rate", 1000, "EUR", "", "1", 10},
		{"bad rate", 1000, "USD", "", "x", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := projections.XPFor(tc.cents, tc.currency, tc.eur, tc.rate); got != tc.want {
				t.Fatalf("%d, want %d", got, tc.want)
			}
		})
	}
}
