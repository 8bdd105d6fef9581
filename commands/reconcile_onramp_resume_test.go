package commands_test

import (
	"strings"
	"testing"
	"time"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/readmodels"
)

// A customer leaves a card checkout, starts another, and pays the first one in its own tab; the
// processor then expires the second, and the webhooks are lost. The reconciliation asked about
// the current (second) session first and applied its expiry: the receipt failed on it, was no
// longer asked about, and its window expired it while the first payment was being completed.
// Now the earlier sessions are asked before the current one's failure is applied: the first
// session's payment under way makes it the current attempt again, which holds the window, and a
// later pass records nothing more until the processor completes it; then it pays.
func TestReconcileOnrampAnEarlierPaymentUnderWayHoldsTheWindow(t *testing.T) {
	t.Parallel()
	rc := newReconcileEnv(t)
	ctx, pool, store, runner, clk, e, f, start := rc.ctx, rc.pool, rc.store, rc.runner, rc.clk, rc.pay, rc.proc, rc.start
	total := money.Cents(300)
	g := receipt.Generated{ReceiptID: commands.NewReceiptID(clk.now()), Merchant: payMerchant, Source: "direct", Currency: "USD", TaxRate: "0",
		TaxComponents: []string{}, LineItems: []receipt.LineItem{{Kind: receipt.KindCustom, Label: "Order", Amount: total}},
		Subtotal: total, Total: total, ExpiresAt: clk.now().Add(time.Hour).UnixMilli()}
	if _, _, err := commands.GenerateReceipt(ctx, store, clk.now(), eventstore.Metadata{}, g); err != nil {
		t.Fatal(err)
	}
	id := g.ReceiptID
	begin := func() commands.OnrampStarted {
		out, err := start.Handle(ctx, commands.StartOnramp{ReceiptID: id})
		if err != nil {
			t.Fatal(err)
		}
		if err := runner.WaitFor(ctx, out.Result.Position); err != nil {
			t.Fatal(err)
		}
		clk.advance(time.Millisecond)
		return out
	}
	first, second := begin(), begin() // the second checkout is left
	f.set(first.SessionID, func(s *commands.OnrampSession) { s.Status = "fulfillment_processing" })
	f.set(second.SessionID, func(s *commands.OnrampSession) { s.Status = "expired" })

	clk.advance(time.Minute)
	h := commands.NewReconcileOnrampHandler(store, f, readmodels.NewReceipts(pool), clk.now)
	pass := func() {
		t.Helper()
		got, err := h.Handle(ctx, commands.ReconcileOnramp{})
		if err != nil || len(got.Failed) != 0 {
			t.Fatalf("pass: %+v %v", got, err)
		}
		for _, ch := range got.Changes {
			if err := runner.WaitFor(ctx, ch.Result.Position); err != nil {
				t.Fatal(err)
			}
		}
	}
	pass()
	st := e.state(id)
	if st.Status != receipt.StatusPending || st.CurrentAttempt != first.AttemptID || strings.Contains(e.history(id), "PaymentFailed") {
		t.Fatalf("after the pass: %s on %s, history %s", st.Status, st.CurrentAttempt, e.history(id))
	}
	if evs, err := receipt.Expire(st, g.ExpiresAt+1, time.Hour); err != nil || len(evs) != 0 {
		t.Fatalf("the window expired a payment under way: %v %v", evs, err)
	}
	before := e.history(id)
	pass()
	if e.history(id) != before {
		t.Fatalf("a second pass: %s (was %s)", e.history(id), before)
	}
	f.set(first.SessionID, func(s *commands.OnrampSession) {
		s.Status, s.TransactionHash, s.SourceAmountUSD = "fulfillment_complete", "0x"+strings.Repeat("8", 64), amount("3.00")
	})
	pass()
	if st := e.state(id); st.Status != receipt.StatusPaid || st.Payment == nil || st.Payment.AttemptID != first.AttemptID {
		t.Fatalf("the first session's completion: %s, %s", st.Status, e.history(id))
	}
}
