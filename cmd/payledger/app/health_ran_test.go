package app

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/internal/syncbuf"
)

// TestHealthRanFailedRunStaysStuck: a watched worker that reports a failed run of its own
// schedule is stuck at once, stays stuck (its error logged once a minute) however long its loop
// goes on, and recovers only when it reports a run that went through.
func TestHealthRanFailedRunStaysStuck(t *testing.T) {
	clk := &testClock{at: time.Unix(1_800_000_000, 0)}
	var logs syncbuf.Buffer
	h := NewHealth(clk.Now, zerolog.New(&logs))
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	w := h.Watch("charging", workerFunc(func(ctx context.Context) error { close(started); <-ctx.Done(); return ctx.Err() }))
	done := make(chan struct{})
	go func() { defer close(done); _ = w.Run(ctx) }()
	defer func() { cancel(); <-done }()
	<-started
	h.Ran("charging", errors.New("daily run: node down"))
	for range 3 {
		if got := h.Check(); len(got) != 1 {
			t.Fatalf("stuck %v after a failed run, want charging", got)
		}
		clk.Advance(time.Hour)
	}
	if got := h.Check(); len(got) != 1 {
		t.Fatalf("stuck %v, want charging", got)
	}
	if n := strings.Count(logs.String(), "background worker stuck"); n != 4 || !strings.Contains(logs.String(), "node down") {
		t.Fatalf("%d stuck lines, want 4 with the run's error:\n%s", n, logs.String())
	}
	h.Ran("charging", nil)
	if got := h.Check(); len(got) != 0 {
		t.Fatalf("stuck %v after a run that went through, want none", got)
	}
}
