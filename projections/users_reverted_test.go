package projections_test

import (
	"context"
	"strings"
	"testing"

	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/projections"
)

// TestXPComesBackWhenAWholeOrderRefundIsReverted (stop 72): a whole-order refund proven on chain
// takes the buyer's XP; a reorg that takes the refund off the chain (RefundReverted: the receipt
// is paid again, its refund a claim) gives it back, once, and the refund proven again takes it
// again. The projector read only confirmations and processed refunds, so the XP debit outlived the
// refund the log no longer counts (the leaderboard showed a paid buyer with no XP). A reverted
// partial refund changes nothing, and a rebuild reaches the same XP.
func TestXPComesBackWhenAWholeOrderRefundIsReverted(t *testing.T) {
	t.Parallel()
	pool, s := setup(t)
	buyer := "0x" + strings.Repeat("d", 40)
	merchant := "0x" + strings.Repeat("5", 40)
	hash := func(c string) string { return "0x" + strings.Repeat(c, 64) }
	add := func(id string, e receipt.Event) eventstore.Position { return appendReceiptEvent(t, s, id, e) }
	paidReceipt := func(id string) {
		add(id, receipt.Generated{ReceiptID: id, Merchant: merchant, Source: "direct", Currency: "USD", Total: 1000,
			LineItems: []receipt.LineItem{{Kind: receipt.KindItem, Label: "x", Amount: money.Cents(1000), Unit: money.Cents(1000), Qty: 1}}, CreatedAt: 1})
		add(id, receipt.PaymentConfirmed{AttemptID: "a-" + id, BuyerWallet: buyer, VerifiedBy: "chain", At: 2})
	}
	refunded := func(id, h string, cents int64) {
		add(id, receipt.RefundRequested{AmountCents: cents, Reason: "r", RequestedBy: merchant, TransactionHash: h, At: 3})
		add(id, receipt.RefundProcessed{AmountCents: cents, Reason: "r", TransactionHash: h, ProcessedBy: merchant, Proof: receipt.ProofChain,
			BlockNumber: 9, BlockHash: "0xb9", At: 4})
	}
	reverted := func(id, h string, cents int64) eventstore.Position {
		return add(id, receipt.RefundReverted{TransactionHash: h, AmountCents: cents, BlockNumber: 9, BlockHash: "0xb9", At: 5})
	}

	paidReceipt("w1") // the whole order refunded, then reverted: 10 XP again
	refunded("w1", hash("1"), 1000)
	paidReceipt("p1") // part of the order refunded and reverted: its 10 XP never moved
	refunded("p1", hash("2"), 400)
	r, stop := start(t, pool, s, projections.NewUsers(s))
	waitFor(t, r, reverted("p1", hash("2"), 400))
	if got := xpOf(t, pool, buyer); got != 10 {
		t.Fatalf("XP with w1 refunded in whole and p1 in part: %d, want 10", got)
	}
	waitFor(t, r, reverted("w1", hash("1"), 1000))
	if got := xpOf(t, pool, buyer); got != 20 {
		t.Fatalf("XP after w1's whole refund was reverted: %d, want 20 (its 10 back)", got)
	}
	waitFor(t, r, reverted("w1", hash("1"), 1000)) // a second revert of the same refund: the receipt ignores it
	if got := xpOf(t, pool, buyer); got != 20 {
		t.Fatalf("XP after a second revert: %d, want 20 (given back once)", got)
	}
	// The claim proven again (a later block): the XP goes again.
	last := add("w1", receipt.RefundProcessed{AmountCents: 1000, Reason: "r", TransactionHash: hash("1"), ProcessedBy: merchant,
		Proof: receipt.ProofChain, BlockNumber: 10, BlockHash: "0xb10", At: 6})
	waitFor(t, r, last)
	if got := xpOf(t, pool, buyer); got != 10 {
		t.Fatalf("XP after w1's refund was proven again: %d, want 10", got)
	}
	stop()
	if err := projections.Rebuild(context.Background(), pool, projections.Users{}); err != nil {
		t.Fatal(err)
	}
	r, _ = start(t, pool, s, projections.NewUsers(s))
	waitFor(t, r, last)
	if got := xpOf(t, pool, buyer); got != 10 {
		t.Fatalf("XP after a rebuild: %d, want 10", got)
	}
}
