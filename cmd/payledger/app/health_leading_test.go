package app

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// leaderWorker is a worker with a leader lock of its own (a projector's Runner).
type leaderWorker struct{ leads atomic.Bool }

func (w *leaderWorker) Run(ctx context.Context) error { <-ctx.Done(); return nil }
func (w *leaderWorker) Leader() bool                  { return w.leads.Load() }

// TestHealthLeadingNamesWhatThisInstanceRuns: Leading names the watched workers whose leader
// lock this instance holds now, and those recorded with LeadsWhen, sorted; a worker without a
// leader lock is never named.
func TestHealthLeadingNamesWhatThisInstanceRuns(t *testing.T) {
	t.Parallel()
	h := NewHealth(time.Now, zerolog.Nop())
	a, b := &leaderWorker{}, &leaderWorker{}
	h.Watch("b projection", b)
	h.Watch("a projection", a)
	h.Watch("dispatch", workerFunc(func(context.Context) error { return nil }))
	h.LeadsWhen("charging", b.Leader)
	if got := h.Leading(); len(got) != 0 {
		t.Fatalf("a standby leads %v", got)
	}
	b.leads.Store(true)
	if got, want := h.Leading(), []string{"b projection", "charging"}; !slices.Equal(got, want) {
		t.Fatalf("leading %v, want %v", got, want)
	}
	a.leads.Store(true)
	b.leads.Store(false)
	if got, want := h.Leading(), []string{"a projection"}; !slices.Equal(got, want) {
		t.Fatalf("leading %v, want %v", got, want)
	}
}
