package transport

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/payledger/payledger/cmd/payledger/app"
	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/settlement"
	"github.com/payledger/payledger/transport/onramp"
)

// TestEveryInstancesHealthzNamesTheWindowsHold (stop 73): with one instance at a time asking the
// processor at windows' ends, only the asker's /healthz named the payment window while a
// receipt's expiry was held for the processor's answer; the other instance's said ok. Two apps on
// one database, as serve wires them: once the hold has lasted past the backoff and a minute,
// both name it, whichever of them asks.
func TestEveryInstancesHealthzNamesTheWindowsHold(t *testing.T) {
	t.Parallel()
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
	e.clk.Advance(time.Hour + time.Second) // the window has ended 1 s ago
	both()
	e.clk.Advance(time.Minute + settlement.WindowAskBackoff)
	both()
	for name, in := range map[string]*env{"the first instance": e, "the second": other} {
		wait.Until(t, name+"'s /healthz names the payment window", 30*time.Second, func() bool { return slices.Contains(in.stuck(), "payment window") })
	}
}
