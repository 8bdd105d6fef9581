package transport

import (
	"context"
	"testing"
	"time"

	"github.com/payledger/payledger/cmd/payledger/app"
	"github.com/payledger/payledger/transport/onramp"
)

// TestOneInstanceReconcilesTheOpenOnrampAttempts (stop 73): every instance ran the background
// onramp reconciliation, and each asked the processor about every open attempt once per
// interval. Two apps on one database, as serve wires them (settlement.OnrampReconciler.InTurn):
// one pass of each asks about the open attempt once.
func TestOneInstanceReconcilesTheOpenOnrampAttempts(t *testing.T) {
	t.Parallel()
	_, upstream := newFakeProcessor(t)
	counted, srv := newDownProcessor(t, upstream.URL) // counts the session reads; nothing is down
	e := newAppEnv(t, func(c *app.Config) { withDeposits(c); c.Processor = onramp.New(srv.URL, "sk_test_1") }, nil, nil)
	other := e.secondInstance(nil)
	m := e.merchant(true)
	id := e.receiptFor(m, "10")
	session, _ := e.startOnramp(id)
	before := counted.read(session)
	e.clk.Advance(3 * time.Minute) // past the background reconciliation's minimum age (2 min)

	ctx := context.Background()
	e.svc.Processes.OnrampReconciler.Pass(ctx)
	other.svc.Processes.OnrampReconciler.Pass(ctx)
	if n := counted.read(session) - before; n != 1 {
		t.Fatalf("one pass of each of two instances asked about the open attempt %d times, want 1", n)
	}
	for _, in := range []*env{e, other} {
		if _, _, err := in.svc.Processes.OnrampReconciler.Failing(); err != nil {
			t.Fatalf("an instance's reconciler is failing: %v", err)
		}
	}
}
