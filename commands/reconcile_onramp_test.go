package commands_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/readmodels"
	"github.com/payledger/payledger/settlement"
)

var _ commands.OpenAttempts = (*readmodels.Receipts)(nil)

// movingClock is a clock the test moves.
type movingClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *movingClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *movingClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// The work list of the reconciliation is the receipts read model: the events go to PostgreSQL and
// the receipts projection follows them, as in serve.
func TestReconcileOnramp(t *testing.T) {
	t.Parallel()
	rc := newReconcileEnv(t)
	ctx, pool, store, runner, clk, e, f, start := rc.ctx, rc.pool, rc.store, rc.runner, rc.clk, rc.pay, rc.proc, rc.start
	h := commands.NewReconcileOnrampHandler(store, f, readmodels.NewReceipts(pool), clk.now)
	var last eventstore.AppendResult
	onramp := func() (string, commands.OnrampStarted) {
		id := e.receipt(payMerchant, "USD", 300)
		out, err := start.Handle(ctx, commands.StartOnramp{ReceiptID: id})
		if err != nil {
			t.Fatal(err)
		}
		last = out.Result
		return id, out
	}
	rejected, r := onramp()
	f.set(r.SessionID, func(s *commands.OnrampSession) {
		s.Status, s.ErrorCode, s.RequestID = "rejected", "insufficient_funds", "req_9"
	})
	quiet, _ := onramp() // the processor has nothing new
	lost, l := onramp()  // the processor does not answer for it
	f.mu.Lock()
	delete(f.sessions, l.SessionID)
	f.mu.Unlock()
	e.receipt(payMerchant, "USD", 100) // no attempt: not on the list
	clk.advance(time.Minute)
	if err := runner.WaitFor(ctx, last.Position); err != nil {
		t.Fatal(err)
	}

	if got, err := h.Handle(ctx, commands.ReconcileOnramp{MinAge: 2 * time.Minute}); err != nil || got.Checked != 0 {
		t.Fatalf("attempts younger than the minimum age checked: %+v %v", got, err)
	}
	got, err := h.Handle(ctx, commands.ReconcileOnramp{})
	if err != nil || got.Checked != 3 || got.Updated != 1 || len(got.Changes) != 1 || got.Changes[0].ReceiptID != rejected {
		t.Fatalf("pass: %+v %v", got, err)
	}
	if st := e.state(rejected); st.Status != receipt.StatusFailed || st.Failure.Code != "PORTAL_PAY_INSUFFICIENT_FUNDS" || st.Failure.ProviderRequestID != "req_9" {
		t.Fatalf("reconciled failure: %s %+v", st.Status, st.Failure)
	}
	if len(got.Failed) != 1 || got.Failed[0].ReceiptID != lost || got.Failed[0].Err == nil { // what the logging decorator reports
		t.Fatalf("failed verifications: %+v", got.Failed)
	}
	for _, id := range []string{quiet, lost} {
		if st := e.state(id); st.Status != receipt.StatusGenerated {
			t.Fatalf("%s: %s", id, st.Status)
		}
	}
	if err := runner.WaitFor(ctx, got.Changes[0].Result.Position); err != nil {
		t.Fatal(err)
	}
	if again, err := h.Handle(ctx, commands.ReconcileOnramp{}); err != nil || again.Checked != 2 || again.Updated != 0 {
		t.Fatalf("the failed receipt is still open: %+v %v", again, err)
	}
	// Without a processor there is nothing to verify.
	if none, err := commands.NewReconcileOnrampHandler(store, nil, readmodels.NewReceipts(pool), clk.now).Handle(ctx, commands.ReconcileOnramp{}); err != nil || none.Checked != 0 {
		t.Fatalf("no processor: %+v %v", none, err)
	}
}

// countingWebhooks counts the retries of marked notifications.
type countingWebhooks struct{ due, all atomic.Int32 }

func (w *countingWebhooks) ReconcileMarked(_ context.Context, all bool) (int, int, error) {
	if all {
		w.all.Add(1)
	} else {
		w.due.Add(1)
	}
	return 0, 0, nil
}

func TestReconcilerRunsUntilCancelled(t *testing.T) {
	t.Parallel()
	e := newPayEnv(t)
	e.configureSplit(payMerchant)
	f := newFakeProcessor()
	id := e.receipt(payMerchant, "USD", 300)
	started, err := commands.NewStartOnrampHandler(e.store, commands.NewSplits(e.store), f, noPrices{}, e.now).Handle(e.ctx, commands.StartOnramp{ReceiptID: id})
	if err != nil {
		t.Fatal(err)
	}
	f.set(started.SessionID, func(s *commands.OnrampSession) {
		s.Status, s.TransactionHash, s.SourceAmountUSD = "fulfillment_complete", "0x"+strings.Repeat("1", 64), amount("3.00")
	})
	webhooks := &countingWebhooks{}
	h := commands.NewReconcileOnrampHandler(e.store, f, listed{id}, e.now)
	r := settlement.NewOnrampReconciler(h, webhooks, 5*time.Millisecond, time.Minute, zerolog.Nop())
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	stopped := make(chan error, 1)
	go func() { stopped <- r.Run(ctx) }()
	for webhooks.due.Load() < 2 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-stopped; !errors.Is(err, context.Canceled) || webhooks.all.Load() != 0 {
		t.Fatalf("run ended with %v (marked retries of all: %d)", err, webhooks.all.Load())
	}
	if st := e.state(id); st.Status != receipt.StatusPaid {
		t.Fatalf("the background pass did not apply the processor's answer: %s", st.Status)
	}
}

// listed is a work list of fixed receipts.
type listed []string

func (l listed) OpenOnrampAttemptsPage(context.Context, time.Time, time.Time, string, int) ([]string, time.Time, error) {
	return l, time.Time{}, nil
}

// The processor's Get pays a receipt only with a source amount that covers it: less is recorded
// once as PaymentIgnored (the receipt stays open, asked again each pass), none confirms nothing.
func TestReconcileOnrampChecksTheSourceAmount(t *testing.T) {
	t.Parallel()
	e := newPayEnv(t)
	e.configureSplit(payMerchant)
	f := newFakeProcessor()
	id := e.receipt(payMerchant, "USD", 10000)
	started, err := commands.NewStartOnrampHandler(e.store, commands.NewSplits(e.store), f, noPrices{}, e.now).Handle(e.ctx, commands.StartOnramp{ReceiptID: id})
	if err != nil {
		t.Fatal(err)
	}
	h := commands.NewReconcileOnrampHandler(e.store, f, listed{id}, e.now)
	for _, step := range []struct {
		name, amount, history string
		status                receipt.Status
	}{
		{"underpaid", "1.00", "ReceiptGenerated,PaymentAttemptStarted,PaymentIgnored", receipt.StatusGenerated},
		{"underpaid, asked again", "1.00", "ReceiptGenerated,PaymentAttemptStarted,PaymentIgnored", receipt.StatusGenerated},
		{"a fraction of a cent short", "99.995", "ReceiptGenerated,PaymentAttemptStarted,PaymentIgnored", receipt.StatusGenerated},
		{"paid in full", "100", "ReceiptGenerated,PaymentAttemptStarted,PaymentIgnored,PaymentConfirmed", receipt.StatusPaid},
	} {
		f.set(started.SessionID, func(s *commands.OnrampSession) {
			s.Status, s.TransactionHash, s.SourceAmountUSD = "fulfillment_complete", "0x"+strings.Repeat("2", 64), nil
			if step.amount != "" {
				s.SourceAmountUSD = amount(step.amount)
			}
		})
		if _, _, err := h.Verify(e.ctx, id); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		if st := e.state(id); st.Status != step.status || e.history(id) != step.history {
			t.Fatalf("%s: %s, %s", step.name, st.Status, e.history(id))
		}
	}
	// The service's own session without an amount (the spec's "when available"): it asked the
	// processor for the amount due when it started the session, so the completion pays.
	own := e.receipt(payMerchant, "USD", 10000)
	ownStarted, err := commands.NewStartOnrampHandler(e.store, commands.NewSplits(e.store), f, noPrices{}, e.now).Handle(e.ctx, commands.StartOnramp{ReceiptID: own})
	if err != nil {
		t.Fatal(err)
	}
	f.set(ownStarted.SessionID, func(s *commands.OnrampSession) {
		s.Status, s.TransactionHash, s.SourceAmountUSD = "fulfillment_complete", "0x"+strings.Repeat("3", 64), nil
	})
	if _, _, err := commands.NewReconcileOnrampHandler(e.store, f, listed{own}, e.now).Verify(e.ctx, own); err != nil {
		t.Fatal(err)
	}
	if st := e.state(own); st.Status != receipt.StatusPaid {
		t.Fatalf("the service's own session without an amount: %s, %s", st.Status, e.history(own))
	}
}
