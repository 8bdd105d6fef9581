package commands_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/readmodels"
)

// unavailable is a processor error the reconciliation takes as "did not answer" (a timeout).
type unavailable struct{}

func (unavailable) Error() string     { return "the processor did not answer" }
func (unavailable) Unavailable() bool { return true }

// silentAbout is the fake processor, except that it does not answer about one session while
// silent is set.
type silentAbout struct {
	*fakeProcessor
	session string
	silent  atomic.Bool
}

func (p *silentAbout) Get(ctx context.Context, id string) (commands.OnrampSession, error) {
	if id == p.session && p.silent.Load() {
		return commands.OnrampSession{}, unavailable{}
	}
	return p.fakeProcessor.Get(ctx, id)
}

// The earlier sessions are asked before the current session's failure is applied, because a
// receipt failed on its current session is not asked about again. When the processor did not
// answer about an earlier session (a timeout), the pass applied the current session's expiry all
// the same: the receipt failed, left the reconciliation's list, and the earlier session's payment
// under way was never found (the window then expired the receipt while the customer paid). Now
// the failure waits for a pass in which every earlier session was asked: the receipt is listed
// as failed to verify, and the next pass resumes the earlier session's payment.
// twoSessions is a receipt with two card sessions: the first's payment under way, the second
// expired, and a processor that does not answer about the first while silent is set.
type twoSessions struct {
	id            string
	first, second commands.OnrampStarted
	proc          *silentAbout
	expiresAt     int64
}

func newTwoSessions(t *testing.T, rc reconcileEnv) twoSessions {
	t.Helper()
	ctx, store, runner, clk, start := rc.ctx, rc.store, rc.runner, rc.clk, rc.start
	total := money.Cents(300)
	g := receipt.Generated{ReceiptID: commands.NewReceiptID(clk.now()), Merchant: payMerchant, Source: "direct", Currency: "USD", TaxRate: "0",
		TaxComponents: []string{}, LineItems: []receipt.LineItem{{Kind: receipt.KindCustom, Label: "Order", Amount: total}},
		Subtotal: total, Total: total, ExpiresAt: clk.now().Add(time.Hour).UnixMilli()}
	if _, _, err := commands.GenerateReceipt(ctx, store, clk.now(), eventstore.Metadata{}, g); err != nil {
		t.Fatal(err)
	}
	begin := func() commands.OnrampStarted {
		out, err := start.Handle(ctx, commands.StartOnramp{ReceiptID: g.ReceiptID})
		if err != nil {
			t.Fatal(err)
		}
		if err := runner.WaitFor(ctx, out.Result.Position); err != nil {
			t.Fatal(err)
		}
		clk.advance(time.Millisecond)
		return out
	}
	first, second := begin(), begin()
	rc.proc.set(first.SessionID, func(s *commands.OnrampSession) { s.Status = "fulfillment_processing" })
	rc.proc.set(second.SessionID, func(s *commands.OnrampSession) { s.Status = "expired" })
	p := &silentAbout{fakeProcessor: rc.proc, session: first.SessionID}
	p.silent.Store(true)
	return twoSessions{id: g.ReceiptID, first: first, second: second, proc: p, expiresAt: g.ExpiresAt}
}

// reconcilePass runs one pass of h and waits for the projection of what it changed.
func reconcilePass(t *testing.T, rc reconcileEnv, h *commands.ReconcileOnrampHandler) commands.Reconciled {
	t.Helper()
	got, err := h.Handle(rc.ctx, commands.ReconcileOnramp{})
	if err != nil {
		t.Fatal(err)
	}
	for _, ch := range got.Changes {
		if err := rc.runner.WaitFor(rc.ctx, ch.Result.Position); err != nil {
			t.Fatal(err)
		}
	}
	return got
}

func TestReview69AnUnansweredEarlierSessionHoldsTheCurrentFailure(t *testing.T) {
	t.Parallel()
	rc := newReconcileEnv(t)
	r := newTwoSessions(t, rc)
	rc.clk.advance(time.Minute)
	h := commands.NewReconcileOnrampHandler(rc.store, r.proc, readmodels.NewReceipts(rc.pool), rc.clk.now)
	got := reconcilePass(t, rc, h)
	if hist := rc.pay.history(r.id); strings.Contains(hist, "PaymentFailed") || len(got.Failed) != 1 || got.Failed[0].ReceiptID != r.id {
		t.Fatalf("a pass that could not ask the earlier session: failed %+v, history %s (want no PaymentFailed, the receipt listed as failed to verify)", got.Failed, hist)
	}
	r.proc.silent.Store(false)
	if got := reconcilePass(t, rc, h); len(got.Failed) != 0 {
		t.Fatalf("the pass once the processor answers: %+v", got.Failed)
	}
	if st := rc.pay.state(r.id); st.Status != receipt.StatusPending || st.CurrentAttempt != r.first.AttemptID || strings.Contains(rc.pay.history(r.id), "PaymentFailed") {
		t.Fatalf("once the processor answers: %s on %s, history %s (want pending on the earlier session)", st.Status, st.CurrentAttempt, rc.pay.history(r.id))
	}
}

// The hold is bounded by the window: after its end no payment under way resumes the receipt, so a
// session the processor never answers about does not keep the expired current session open (and
// the receipt pending, the window held by it) for good: its failure is applied.
func TestReview69AnUnansweredEarlierSessionHoldsNothingAfterTheWindow(t *testing.T) {
	t.Parallel()
	rc := newReconcileEnv(t)
	r := newTwoSessions(t, rc)
	rc.clk.advance(time.Duration(r.expiresAt-rc.clk.now().UnixMilli())*time.Millisecond + time.Minute)
	h := commands.NewReconcileOnrampHandler(rc.store, r.proc, readmodels.NewReceipts(rc.pool), rc.clk.now)
	got := reconcilePass(t, rc, h)
	if hist := rc.pay.history(r.id); !strings.Contains(hist, "PaymentFailed") || len(got.Failed) != 0 {
		t.Fatalf("after the window's end: failed %+v, history %s (want the current session's failure applied)", got.Failed, hist)
	}
}
