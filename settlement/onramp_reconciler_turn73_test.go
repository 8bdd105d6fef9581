package settlement_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/readmodels"
	"github.com/payledger/payledger/settlement"
	"github.com/payledger/payledger/settlement/pgstore"
)

// countingProcessor answers every session as still open ("created": nothing to record) and
// counts the asks per session.
type countingProcessor struct {
	mu    sync.Mutex
	asked map[string]int
}

func (p *countingProcessor) Create(context.Context, commands.OnrampRequest) (commands.OnrampSession, error) {
	return commands.OnrampSession{}, fmt.Errorf("not used")
}

func (p *countingProcessor) Get(_ context.Context, id string) (commands.OnrampSession, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.asked[id]++
	return commands.OnrampSession{ID: id, Status: "created"}, nil
}

// want fails the test unless every session of sessions was asked n times.
func (p *countingProcessor) want(t *testing.T, when string, sessions []string, n int) {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, s := range sessions {
		if p.asked[s] != n {
			t.Fatalf("%s: session %s asked %d times, want %d (asks %v)", when, s, p.asked[s], n, p.asked)
		}
	}
}

// noMarked is a webhook dispatcher with no marked notification.
type noMarked struct{}

func (noMarked) ReconcileMarked(context.Context, bool) (int, int, error) { return 0, 0, nil }

// TestOneInstanceAtATimeReconcilesTheOpenOnrampAttempts (stop 73): every instance runs the
// background reconciliation, and each asked the processor about every open attempt once per
// interval. With the turn (InTurn, pgstore.NewReconcileTurn), two reconcilers on one database ask
// about each attempt once a pass; the one without the turn is not failing; the holder keeps the
// turn from pass to pass, and once its Run ends the other takes it over.
func TestOneInstanceAtATimeReconcilesTheOpenOnrampAttempts(t *testing.T) {
	t.Parallel()
	e := newWindowEnv(t)
	var sessions []string
	for i := range 2 {
		id, session := e.receipt(), fmt.Sprintf("cos_turn73_%d", i)
		e.change(id, func(st receipt.State) ([]receipt.Event, error) {
			return receipt.StartAttempt(st, receipt.AttemptStarted{AttemptID: fmt.Sprintf("att_turn73_%d", i), Kind: "onramp", SessionID: session,
				OpenedBy: "service", At: e.now().UnixMilli()})
		})
		sessions = append(sessions, session)
	}
	e.advance(time.Minute)
	proc := &countingProcessor{asked: map[string]int{}}
	reconciler := func() *settlement.OnrampReconciler {
		h := commands.NewReconcileOnrampHandler(e.store, proc, readmodels.NewReceipts(e.pool), e.now)
		turn := pgstore.NewReconcileTurn(e.pool, time.Hour)
		t.Cleanup(turn.Give)
		return settlement.NewOnrampReconciler(h, noMarked{}, time.Hour, 0, zerolog.Nop()).InTurn(turn)
	}
	a, b := reconciler(), reconciler()

	a.Pass(e.ctx)
	b.Pass(e.ctx)
	proc.want(t, "one pass of each instance", sessions, 1)
	if _, _, err := b.Failing(); err != nil {
		t.Fatalf("the instance without the turn is failing: %v", err)
	}
	a.Pass(e.ctx)
	b.Pass(e.ctx)
	proc.want(t, "a second pass of each", sessions, 2)

	ctx, stop := context.WithCancel(e.ctx)
	stop()
	if err := a.Run(ctx); err != context.Canceled { // A stops: it gives the turn back
		t.Fatalf("run: %v", err)
	}
	b.Pass(e.ctx)
	a.Pass(e.ctx)
	proc.want(t, "after A stopped, a pass of B then of A", sessions, 3)
}
