package commands_test

import (
	"strings"
	"testing"
	"time"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/readmodels"
)

// A customer whose first card session was declined (the receipt reads failed by that attempt)
// opens a second one, and the processor completes it, but its webhook is lost. The receipt
// holds the payment window for that session (receipt.State.OnrampOpen), yet the
// reconciliation's work list took generated, pending and ach_pending receipts only: nothing
// ever asked the processor about the session, and the receipt stayed failed for good while the
// customer had paid. A retried session the processor declined too replaces the receipt's
// failure and is over: the next pass does not ask about it again (it was recorded as ignored and
// held the window open for good). A failed receipt with no session after the one that failed it
// is not asked about (its history does not change).
func TestReconcileOnrampAsksAboutARetriedCardSession(t *testing.T) {
	t.Parallel()
	rc := newReconcileEnv(t)
	ctx, pool, store, runner, clk, e, f, start := rc.ctx, rc.pool, rc.store, rc.runner, rc.clk, rc.pay, rc.proc, rc.start
	var last eventstore.AppendResult
	declined := func() string {
		id := e.receipt(payMerchant, "USD", 300)
		out, err := start.Handle(ctx, commands.StartOnramp{ReceiptID: id})
		if err != nil {
			t.Fatal(err)
		}
		u := receipt.ProcessorUpdate{SessionID: out.SessionID, AttemptID: out.AttemptID, Status: "rejected", ErrorCode: "insufficient_funds",
			SessionOwner: id, At: clk.now().UnixMilli()}
		if _, last, err = commands.ChangeReceipt(ctx, store, id, eventstore.Metadata{}, func(st receipt.State) ([]receipt.Event, error) {
			return receipt.DecideProcessorUpdate(st, u)
		}); err != nil {
			t.Fatal(err)
		}
		f.set(out.SessionID, func(s *commands.OnrampSession) { s.Status, s.ErrorCode = "rejected", "insufficient_funds" })
		return id
	}
	retried := declined()
	again, err := start.Handle(ctx, commands.StartOnramp{ReceiptID: retried})
	if err != nil {
		t.Fatal(err)
	}
	last = again.Result
	if st := e.state(retried); st.Status != receipt.StatusFailed || !st.OnrampOpen() {
		t.Fatalf("the retried receipt: %s, onramp open %v", st.Status, st.OnrampOpen())
	}
	f.set(again.SessionID, func(s *commands.OnrampSession) {
		s.Status, s.TransactionHash, s.SourceAmountUSD = "fulfillment_complete", "0x"+strings.Repeat("6", 64), amount("3.00")
	})
	twice := declined() // its second session is declined too: that failure ends the session
	second, err := start.Handle(ctx, commands.StartOnramp{ReceiptID: twice})
	if err != nil {
		t.Fatal(err)
	}
	last = second.Result
	f.set(second.SessionID, func(s *commands.OnrampSession) { s.Status, s.ErrorCode = "rejected", "expired_card" })
	left := declined() // failed, no session after it: nothing to ask
	if err := runner.WaitFor(ctx, last.Position); err != nil {
		t.Fatal(err)
	}
	clk.advance(time.Minute)
	before := e.history(left)

	h := commands.NewReconcileOnrampHandler(store, f, readmodels.NewReceipts(pool), clk.now)
	got, err := h.Handle(ctx, commands.ReconcileOnramp{})
	if err != nil || len(got.Failed) != 0 || got.Checked != 2 || got.Updated != 2 {
		t.Fatalf("pass: %+v %v", got, err)
	}
	if st := e.state(retried); st.Status != receipt.StatusPaid {
		t.Fatalf("the retried session the processor completed: receipt %s after a pass (%+v), want paid", st.Status, got)
	}
	if st := e.state(twice); st.FailureView() == nil || st.FailureView().Code != "PORTAL_PAY_EXPIRED_CARD" || st.OnrampOpen() {
		t.Fatalf("the declined retry: %s, failure %+v, onramp open %v", st.Status, st.FailureView(), st.OnrampOpen())
	}
	for _, ch := range got.Changes {
		if err := runner.WaitFor(ctx, ch.Result.Position); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := h.Handle(ctx, commands.ReconcileOnramp{}); err != nil || got.Checked != 0 {
		t.Fatalf("a second pass asked again: %+v %v", got, err)
	}
	if st := e.state(left); st.Status != receipt.StatusFailed || e.history(left) != before {
		t.Fatalf("the declined receipt: %s, history %s (was %s)", st.Status, e.history(left), before)
	}
}
