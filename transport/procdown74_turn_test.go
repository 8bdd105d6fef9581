package transport

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/payledger/payledger/cmd/payledger/app"
	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/transport/onramp"
)

// TestEveryInstanceReportsTheProcessorDown (stop 74): only the instance holding the onramp
// reconciliation's turn asks the processor (stop 73), so only its /healthz said the processor was
// down. Two apps on one database, as serve wires them: the holder records what it found
// (pgstore.ProcessorState), and the other instance's pass reports it, from the holder's first
// failure; once that has lasted a minute, the other's /healthz names the onramp reconciliation.
// When the processor answers the holder again, the other's next pass clears it.
func TestEveryInstanceReportsTheProcessorDown(t *testing.T) {
	t.Parallel()
	_, upstream := newFakeProcessor(t)
	proc, srv := newDownProcessor(t, upstream.URL)
	e := newAppEnv(t, func(c *app.Config) { withDeposits(c); c.Processor = onramp.New(srv.URL, "sk_test_1") }, nil, nil)
	other := e.secondInstance(nil)
	m := e.merchant(true)
	session, _ := e.startOnramp(e.receiptFor(m, "10"))
	proc.setDown(session)
	e.clk.Advance(3 * time.Minute) // past the background reconciliation's minimum age (2 min)

	// The other instance's reconciler runs as serve runs it (under Health's watch), so that its
	// /healthz judges it; its passes are driven here.
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	watched := other.svc.Health.Watch("onramp reconciliation", other.svc.Processes.OnrampReconciler)
	go func() { defer close(done); _ = watched.Run(ctx) }()
	t.Cleanup(func() { stop(); <-done })

	holder, others := e.svc.Processes.OnrampReconciler, other.svc.Processes.OnrampReconciler
	holder.Pass(ctx) // takes the turn first: the processor does not answer it
	since, _, err := holder.Failing()
	if err == nil {
		t.Fatal("the holder's pass did not find the processor down")
	}
	others.Pass(ctx)
	otherSince, _, otherErr := others.Failing()
	if otherErr == nil || !strings.Contains(otherErr.Error(), "does not answer") || otherSince.After(since) {
		t.Fatalf("the other instance's pass: since %v (holder's %v), %v; want the processor down from the holder's first failure", otherSince, since, otherErr)
	}
	e.clk.Advance(2 * time.Minute) // Health's clock: the failure has lasted past a minute
	wait.Until(t, "the other /healthz names the onramp reconciliation", 30*time.Second, func() bool {
		return slices.Contains(other.stuck(), "onramp reconciliation")
	})

	proc.mu.Lock()
	proc.down[session] = false
	proc.mu.Unlock()
	holder.Pass(ctx)
	others.Pass(ctx)
	if _, _, err := others.Failing(); err != nil {
		t.Fatalf("the processor answers the holder again; the other instance still reports: %v", err)
	}
	wait.Until(t, "the other /healthz no longer names the onramp reconciliation", 30*time.Second, func() bool {
		return !slices.Contains(other.stuck(), "onramp reconciliation")
	})
}
