package app

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/internal/syncbuf"
)

// retryingWorker is a watched worker that retries its failures itself (a projector's Runner).
type retryingWorker struct {
	started     chan struct{}
	mu          sync.Mutex
	since, last time.Time
	err         error
}

func (w *retryingWorker) Run(ctx context.Context) error {
	close(w.started)
	<-ctx.Done()
	return ctx.Err()
}
func (w *retryingWorker) Failing() (since, last time.Time, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.since, w.last, w.err
}
func (w *retryingWorker) set(since, last time.Time, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.since, w.last, w.err = since, last, err
}

// TestHealthWorkerFailingForAMinuteIsStuck: a watched worker whose own retries have failed for
// failingFor is stuck, its latest error its last error, logged once as it becomes stuck and then
// once a minute; it recovers when it reports no run of failures.
func TestHealthWorkerFailingForAMinuteIsStuck(t *testing.T) {
	clk := &testClock{at: time.Unix(1_800_000_000, 0)}
	var logs syncbuf.Buffer
	h := NewHealth(clk.Now, zerolog.New(&logs))
	ctx, cancel := context.WithCancel(context.Background())
	w := &retryingWorker{started: make(chan struct{})}
	run := h.Watch("receipts projection", w)
	done := make(chan struct{})
	go func() { defer close(done); _ = run.Run(ctx) }()
	defer func() { cancel(); <-done }()
	<-w.started
	boom := errors.New("duplicate key value violates unique constraint")
	t0 := clk.Now()
	for _, d := range []time.Duration{0, 30 * time.Second, 29 * time.Second} {
		clk.Advance(d)
		w.set(t0, clk.Now(), boom)
		if got := h.Check(); len(got) != 0 {
			t.Fatalf("stuck %v after failing for %s, want none before a minute", got, clk.Now().Sub(t0))
		}
	}
	for range 21 { // failing for 62 s to 2 min 2 s, every 3 s
		clk.Advance(3 * time.Second)
		w.set(t0, clk.Now(), boom)
		if got := h.Check(); len(got) != 1 || got[0] != "receipts projection" {
			t.Fatalf("stuck %v after failing for %s, want the projection", got, clk.Now().Sub(t0))
		}
	}
	if n := strings.Count(logs.String(), "background worker stuck"); n != 2 || !strings.Contains(logs.String(), boom.Error()) {
		t.Fatalf("%d stuck lines, want 2 (at a minute, then a minute later) with the error:\n%s", n, logs.String())
	}
	if s := h.Workers(); len(s) != 1 || !s[0].Stuck || s[0].LastError != boom.Error() || !s[0].LastErrorAt.Equal(clk.Now()) {
		t.Fatalf("worker record %+v, want stuck with its latest error", s)
	}
	w.set(time.Time{}, time.Time{}, nil)
	if got := h.Check(); len(got) != 0 || !strings.Contains(logs.String(), "background worker recovered") {
		t.Fatalf("stuck %v once its failures ended, want none (recovery logged):\n%s", got, logs.String())
	}
}
