package projections_test

import (
	"strings"
	"testing"

	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/projections"
)

// TestXPStaysWhenOnlyTheExcessOrTheEarlyFundsAreRefunded: a buyer's XP is taken back when the
// order is refunded in full, not when what the refunds of the excess (stop 70) or of funds
// returned before a late payment (stop 69) bring back reaches the total. The users projector
// summed every RefundProcessed, so a merchant refunding a customer's overpayment of the total's
// size (or the early funds and the rest of the order) took the buyer's XP while the order stood
// paid; and a chain-proven refund the receipt never claimed (which the receipt does not count)
// counted there too.
func TestXPStaysWhenOnlyTheExcessOrTheEarlyFundsAreRefunded(t *testing.T) {
	t.Parallel()
	pool, s := setup(t)
	buyer := "0x" + strings.Repeat("c", 40)
	merchant := "0x" + strings.Repeat("4", 40)
	hash := func(c string) string { return "0x" + strings.Repeat(c, 64) }
	gen := func(id string) {
		appendReceiptEvent(t, s, id, receipt.Generated{ReceiptID: id, Merchant: merchant, Source: "direct", Currency: "USD", Total: 1000,
			LineItems: []receipt.LineItem{{Kind: receipt.KindItem, Label: "x", Amount: money.Cents(1000), Unit: money.Cents(1000), Qty: 1}}, CreatedAt: 1})
	}
	paid := func(id string) {
		appendReceiptEvent(t, s, id, receipt.PaymentConfirmed{AttemptID: "a-" + id, BuyerWallet: buyer, VerifiedBy: "chain", At: 2})
	}
	claim := func(id, h string, cents int64, excess bool) {
		appendReceiptEvent(t, s, id, receipt.RefundRequested{AmountCents: cents, Reason: "r", RequestedBy: merchant, TransactionHash: h, OfExcess: excess, At: 3})
	}
	proven := func(id, h string, cents int64) {
		appendReceiptEvent(t, s, id, receipt.RefundProcessed{AmountCents: cents, Reason: "r", TransactionHash: h, ProcessedBy: merchant, Proof: receipt.ProofChain, At: 4})
	}

	// e1: paid 10.00 (and 10.00 more sent beyond it); the 10.00 of excess refunded, proven.
	gen("e1")
	paid("e1")
	claim("e1", hash("1"), 1000, true)
	proven("e1", hash("1"), 1000)
	// f1: 4.00 sent and refunded while it had no payment, then paid late; 6.00 of the order refunded.
	gen("f1")
	claim("f1", hash("2"), 400, false)
	proven("f1", hash("2"), 400)
	paid("f1")
	claim("f1", hash("3"), 600, false)
	proven("f1", hash("3"), 600)
	// u1: a chain-proven refund of 10.00 the receipt never claimed: the receipt does not count it.
	gen("u1")
	paid("u1")
	proven("u1", hash("4"), 1000)
	// o1: the order refunded in whole: the XP goes.
	gen("o1")
	paid("o1")
	claim("o1", hash("5"), 1000, false)
	last := appendReceiptEvent(t, s, "o1", receipt.RefundProcessed{AmountCents: 1000, Reason: "r", TransactionHash: hash("5"),
		ProcessedBy: merchant, Proof: receipt.ProofChain, At: 4})

	r, _ := start(t, pool, s, projections.NewUsers(s))
	waitFor(t, r, last)
	if got := xpOf(t, pool, buyer); got != 30 {
		t.Fatalf("XP after e1's excess, f1's early funds and part of its order, u1's unclaimed transfer and o1's whole order refunded: %d, want 30 (10 each for e1, f1 and u1)", got)
	}
}
