package settlement_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/settlement"
	"github.com/payledger/payledger/settlement/pgstore"
)

// processorDownErr is the processor's silence (commands.ProcessorUnavailable).
type processorDownErr struct{}

func (processorDownErr) Error() string     { return "onramp processor: 503" }
func (processorDownErr) Unavailable() bool { return true }

// silentAsk is a processor that never answers at windows' ends; it counts the asks.
type silentAsk struct {
	mu    sync.Mutex
	asked int
}

func (a *silentAsk) AskAtWindowEnd(context.Context, string, time.Time, time.Duration) (bool, eventstore.AppendResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asked++
	return false, eventstore.AppendResult{}, processorDownErr{}
}

// TestEveryInstanceReportsTheWindowsHold (stop 73): with one instance at a time asking the
// processor at windows' ends (AskingInTurn), only the asker's passes failed while a receipt's
// expiry was held for the processor's answer: the other instances' /healthz said ok and their
// logs named nothing. Now a pass without the turn reports the receipts still waiting
// windowHeldShown after their end (none sooner: the asker resolves them at once when the
// processor answers), and asks nothing.
func TestEveryInstanceReportsTheWindowsHold(t *testing.T) {
	t.Parallel()
	e := newWindowEnv(t)
	id := e.receipt()
	for _, s := range []string{"a", "b"} {
		e.change(id, func(st receipt.State) ([]receipt.Event, error) {
			return receipt.StartAttempt(st, receipt.AttemptStarted{AttemptID: "att_held73_" + s, Kind: "onramp", SessionID: "cos_held73_" + s,
				OpenedBy: "service", At: e.now().UnixMilli()})
		})
		e.advance(time.Millisecond)
	}
	e.change(id, func(st receipt.State) ([]receipt.Event, error) { // B expired: A is the earlier session to ask about
		return receipt.DecideProcessorUpdate(st, receipt.ProcessorUpdate{SessionID: "cos_held73_b", AttemptID: "att_held73_b", Status: "expired",
			SessionOwner: id, At: e.now().UnixMilli()})
	})
	ask := &silentAsk{}
	instance := func() *settlement.PaymentWindowHandler {
		turn := pgstore.NewWindowAskTurn(e.pool)
		t.Cleanup(turn.Give)
		return e.handler().AskingAtEnd(ask, zerolog.Nop()).AskingInTurn(turn)
	}
	a, b := instance(), instance()

	e.advance(e.cfg.Window + time.Second) // the window ended a second ago
	if _, err := a.Handle(e.ctx); err == nil || !strings.Contains(err.Error(), id) {
		t.Fatalf("the asker's pass: %v, want the hold naming %s", err, id)
	}
	if _, err := b.Handle(e.ctx); err != nil {
		t.Fatalf("the other's pass a second after the end: %v, want none (the asker resolves the receipt at once when the processor answers)", err)
	}
	e.advance(settlement.WindowAskBackoff)
	_, errA := a.Handle(e.ctx)
	_, errB := b.Handle(e.ctx)
	for name, err := range map[string]error{"the asker": errA, "the other": errB} {
		if err == nil || !strings.Contains(err.Error(), id) {
			t.Fatalf("%s's pass after the backoff: %v, want the hold naming %s", name, err, id)
		}
	}
	ask.mu.Lock()
	defer ask.mu.Unlock()
	if ask.asked != 2 {
		t.Fatalf("asked %d times, want 2 (the asker's, at the end and after the backoff)", ask.asked)
	}
}
