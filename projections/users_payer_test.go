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

// TestXPGoesOnlyToAVerifiedPayer: a payment hint names a wallet on the browser's word (anyone
// may post one, backed by a dust transfer to the deposit address). When the receipt is then
// paid by a confirmation that names no wallet (cash at the terminal, a processor report
// without one), XP went to that hinted wallet; a chain confirmation's sender was credited
// correctly only because it overrode the hint. Now only the confirmation's wallet (the payer
// the receipt shows) is credited, live and after a rebuild alike.
func TestXPGoesOnlyToAVerifiedPayer(t *testing.T) {
	t.Parallel()
	pool, s := setup(t)
	ctx := context.Background()
	merchant := "0x" + strings.Repeat("1", 40)
	hinter, payer := "0x"+strings.Repeat("e", 40), "0x"+strings.Repeat("f", 40)
	gen := func(id string, cents int64) {
		appendReceiptEvent(t, s, id, receipt.Generated{ReceiptID: id, Merchant: merchant, Source: "direct", Currency: "USD", Total: money.Cents(cents),
			LineItems: []receipt.LineItem{{Kind: receipt.KindItem, Label: "x", Amount: money.Cents(cents), Unit: money.Cents(cents), Qty: 1}}, CreatedAt: 1})
		appendReceiptEvent(t, s, id, receipt.AttemptStarted{AttemptID: "hint-" + id, Kind: "wallet", OpenedBy: "service", At: 2})
		appendReceiptEvent(t, s, id, receipt.PaymentSubmitted{AttemptID: "hint-" + id, Source: "wallet", Token: "USDC",
			TransactionHash: "0x" + strings.Repeat("d", 64), BuyerWallet: "0x" + strings.ToUpper(hinter[2:]), At: 2})
	}
	gen("cash", 10000)   // 100 USD in cash at the terminal
	gen("onramp", 5000)  // 50 USD through the processor, no wallet reported
	gen("chain", 2000)   // 20 USD from payer's wallet, seen on chain
	gen("reported", 700) // 7 USD through the processor, which reports payer's wallet
	appendReceiptEvent(t, s, "cash", receipt.PaymentConfirmed{AttemptID: "t", VerifiedBy: "merchant", Method: "cash", Token: "USD", At: 3})
	appendReceiptEvent(t, s, "onramp", receipt.PaymentConfirmed{AttemptID: "o", VerifiedBy: "processor", Token: "USDC", At: 3})
	appendReceiptEvent(t, s, "chain", receipt.PaymentConfirmed{AttemptID: receipt.MethodDeposit, BuyerWallet: payer, VerifiedBy: receipt.VerifiedByChain, At: 3})
	last := appendReceiptEvent(t, s, "reported", receipt.PaymentConfirmed{AttemptID: "p", BuyerWallet: payer, VerifiedBy: "processor", At: 3})
	check := func(when string, last eventstore.Position) {
		t.Helper()
		r, stop := start(t, pool, s, projections.NewUsers(s))
		waitFor(t, r, last)
		stop()
		if got := xpOf(t, pool, hinter); got != 0 {
			t.Fatalf("%s: the hinted wallet has %d XP, want 0 (it paid nothing the service verified)", when, got)
		}
		if got := xpOf(t, pool, payer); got != 27 {
			t.Fatalf("%s: the payer has %d XP, want 27", when, got)
		}
	}
	check("live", last)
	if err := projections.Rebuild(ctx, pool, projections.Users{}); err != nil {
		t.Fatal(err)
	}
	check("after a rebuild", last)
}
