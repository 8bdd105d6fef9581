package transport

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/payledger/payledger/cmd/payledger/app"
	"github.com/payledger/payledger/settlement"
	"github.com/payledger/payledger/transport/onramp"
)

// TestOneInstanceAsksTheProcessorAboutAHeldReceipt (stop 72): every instance runs the window's
// passes, and each asked the processor about the same held receipt, each with its own backoff:
// two instances asked twice at the window's end and twice after each backoff. Now one instance
// at a time asks (settlement.PaymentWindowHandler.AskingInTurn, an advisory lock): two instances
// on one database ask once at the end and once after the backoff, and the receipt is expired once
// after the hold.
func TestOneInstanceAsksTheProcessorAboutAHeldReceipt(t *testing.T) {
	t.Parallel()
	w := holdOnTwoInstances(t)
	e, m, held, sa, down, asked, both := w.e, w.m, w.held, w.sa, w.down, w.asked, w.both

	e.clk.Advance(time.Hour + time.Second) // the window has ended 1 s ago
	both()
	if n := down.read(sa) - asked; n != 1 {
		t.Fatalf("two instances asked %d times at the window's end, want 1", n)
	}
	e.clk.Advance(settlement.WindowAskBackoff + time.Second)
	both()
	if n := down.read(sa) - asked; n != 2 {
		t.Fatalf("two instances asked %d times by the end of the backoff, want 2", n)
	}
	if h := e.history(m, held); countOf(h, "PaymentWindowExpired") != 0 {
		t.Fatalf("expired while held: %v", h)
	}
	e.clk.Advance(settlement.WindowEndHold)
	e.waitStatus(m, held, func(map[string]any) bool { return slices.Contains(e.history(m, held), "PaymentWindowExpired") })
	both()
	if h := e.history(m, held); countOf(h, "PaymentWindowExpired") != 1 {
		t.Fatalf("after the hold: %v", h)
	}
}

// heldOnTwo is a receipt whose payment window's end waits for the processor's answer about its
// earlier session (sa, down for good at down), on two instances (e, other) of one database whose
// window workers run; both waits for a pass of each.
type heldOnTwo struct {
	e, other *env
	m        merchant
	held, sa string
	down     *downProcessor
	asked    int // the processor's asks about sa before the window's end (the later start's)
	both     func()
}

// holdOnTwoInstances sets up heldOnTwo, the clock still before the window's end.
func holdOnTwoInstances(t *testing.T) heldOnTwo {
	t.Helper()
	fake, upstream := newFakeProcessor(t)
	down, srv := newDownProcessor(t, upstream.URL)
	e := newAppEnv(t, func(c *app.Config) { withDeposits(c); c.Processor = onramp.New(srv.URL, "sk_test_1") }, nil, nil)
	other := e.secondInstance(nil)
	m := e.merchant(true)
	held := e.receiptFor(m, "10")
	sa, _ := e.startOnramp(held)
	sb, ab := e.startOnramp(held)
	if rec := e.processorEvent("evt_"+sb, held, ab, sb, "expired", ""); rec.Code != 200 {
		t.Fatalf("B expired: %d %s", rec.Code, rec.Body)
	}
	fake.set(sb, func(s *onramp.Session) { s.Status = "expired" })
	down.setDown(sa)
	asked := down.read(sa) // B's start asked about A

	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for _, in := range []*env{e, other} {
		wg.Go(func() { _ = in.svc.Processes.PaymentWindow.Run(ctx) })
	}
	t.Cleanup(func() { stop(); wg.Wait() })
	both := func() {
		t.Helper()
		e.passed("payment window")
		other.passed("payment window")
	}
	return heldOnTwo{e: e, other: other, m: m, held: held, sa: sa, down: down, asked: asked, both: both}
}
