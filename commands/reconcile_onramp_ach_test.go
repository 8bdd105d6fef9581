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

// An ACH payment the processor accepted (ach_pending) settles days later. When the processor's
// fulfillment_complete webhook for it is lost, the reconciliation is the only way the receipt
// learns it was paid; its work list took generated and pending receipts only, so such a receipt
// stayed ach_pending for good (no paid webhook, no split distribution, and ach_pending holds the
// payment window open). A session the processor now reports rejected is the payment's return
// (after its acceptance, so not stale): the receipt fails with the processor's failure, once;
// it stayed ach_pending for good ("a failure never replaces ach_pending"). A session that is
// still ach_pending records nothing, pass after pass.
func TestReconcileOnrampAsksAboutACHPending(t *testing.T) {
	t.Parallel()
	rc := newReconcileEnv(t)
	ctx, pool, store, runner, clk, e, f, start := rc.ctx, rc.pool, rc.store, rc.runner, rc.clk, rc.pay, rc.proc, rc.start
	var last eventstore.AppendResult
	achPending := func() (string, commands.OnrampStarted) {
		id := e.receipt(payMerchant, "USD", 300)
		out, err := start.Handle(ctx, commands.StartOnramp{ReceiptID: id})
		if err != nil {
			t.Fatal(err)
		}
		u := receipt.ProcessorUpdate{SessionID: out.SessionID, AttemptID: out.AttemptID, Status: "ach_pending", SessionOwner: id, At: clk.now().UnixMilli()}
		if _, last, err = commands.ChangeReceipt(ctx, store, id, eventstore.Metadata{}, func(st receipt.State) ([]receipt.Event, error) {
			return receipt.DecideProcessorUpdate(st, u)
		}); err != nil {
			t.Fatal(err)
		}
		if st := e.state(id); st.Status != receipt.StatusACHPending {
			t.Fatalf("status %s, want ach_pending", st.Status)
		}
		f.set(out.SessionID, func(s *commands.OnrampSession) { s.Status = "ach_pending" })
		return id, out
	}
	settled, s := achPending()
	f.set(s.SessionID, func(s *commands.OnrampSession) {
		s.Status, s.TransactionHash, s.SourceAmountUSD = "fulfillment_complete", "0x"+strings.Repeat("5", 64), amount("3.00")
	})
	returned, r := achPending()
	f.set(r.SessionID, func(s *commands.OnrampSession) { s.Status, s.ErrorCode = "rejected", "insufficient_funds" })
	waiting, _ := achPending()
	if err := runner.WaitFor(ctx, last.Position); err != nil {
		t.Fatal(err)
	}
	clk.advance(time.Minute)
	before := map[string]string{waiting: e.history(waiting)}

	h := commands.NewReconcileOnrampHandler(store, f, readmodels.NewReceipts(pool), clk.now)
	for pass := 1; pass <= 2; pass++ {
		got, err := h.Handle(ctx, commands.ReconcileOnramp{})
		if err != nil || len(got.Failed) != 0 {
			t.Fatalf("pass %d: %+v %v", pass, got, err)
		}
		for _, ch := range got.Changes {
			if err := runner.WaitFor(ctx, ch.Result.Position); err != nil {
				t.Fatal(err)
			}
		}
	}
	if st := e.state(settled); st.Status != receipt.StatusPaid {
		t.Fatalf("the ACH payment the processor completed is %s after two passes, want paid", st.Status)
	}
	st := e.state(returned)
	if f := st.FailureView(); st.Status != receipt.StatusFailed || f == nil || f.Code != "PORTAL_PAY_INSUFFICIENT_FUNDS" || f.AttemptID != r.AttemptID ||
		strings.Count(e.history(returned), "PaymentFailed") != 1 {
		t.Fatalf("the returned ACH payment after two passes: %s, failure %+v, history %s", st.Status, f, e.history(returned))
	}
	for id, h := range before {
		if st := e.state(id); st.Status != receipt.StatusACHPending || e.history(id) != h {
			t.Fatalf("%s: %s, history %s (was %s)", id, st.Status, e.history(id), h)
		}
	}
}
