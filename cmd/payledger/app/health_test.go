package app

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/internal/syncbuf"
	"github.com/payledger/payledger/internal/wait"
)

type testClock struct {
	mu sync.Mutex
	at time.Time
}

func (c *testClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.at }
func (c *testClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.at = c.at.Add(d)
}

// TestHealthJudgesWorkers: the stall rules as a table of steps on a fake clock.
func TestHealthJudgesWorkers(t *testing.T) {
	boom := errors.New("node says no")
	type step struct {
		after      time.Duration
		progressed bool
		err        error
		stuck      bool
	}
	cases := []struct {
		name     string
		interval time.Duration
		steps    []step
		logged   int // "background worker stuck" lines
	}{
		{"progress keeps it healthy", 2 * time.Second, []step{{time.Minute, true, nil, false}, {time.Minute, true, nil, false}}, 0},
		{"failing for 10 intervals of 5 s", 5 * time.Second, []step{{45 * time.Second, false, boom, false}, {6 * time.Second, false, boom, true}}, 1},
		{"the 30 s floor for a 1 s interval", time.Second, []step{{20 * time.Second, false, nil, false}, {11 * time.Second, false, nil, true}}, 1},
		{"logged once a minute while stuck", time.Second, []step{{31 * time.Second, false, boom, true}, {30 * time.Second, false, boom, true},
			{31 * time.Second, false, boom, true}}, 2},
		{"recovers on progress", time.Second, []step{{31 * time.Second, false, boom, true}, {time.Second, true, nil, false}}, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			clk := &testClock{at: time.Unix(1_800_000_000, 0)}
			var logs bytes.Buffer
			h := NewHealth(clk.Now, zerolog.New(&logs))
			h.register("w", c.interval, false)
			h.start("w")
			for i, s := range c.steps {
				clk.Advance(s.after)
				h.stepped("w", s.progressed, s.err)
				if got := len(h.Stuck()) == 1; got != s.stuck {
					t.Fatalf("step %d: stuck %v, want %v", i, got, s.stuck)
				}
			}
			if n := strings.Count(logs.String(), "background worker stuck"); n != c.logged {
				t.Fatalf("%d stuck lines, want %d:\n%s", n, c.logged, logs.String())
			}
		})
	}
}

// TestHealthWatchedWorkerThatStops: a watched worker whose Run returns an error is stuck at once
// and named; one nobody runs is never stuck.
func TestHealthWatchedWorkerThatStops(t *testing.T) {
	clk := &testClock{at: time.Unix(1_800_000_000, 0)}
	var logs bytes.Buffer
	h := NewHealth(clk.Now, zerolog.New(&logs))
	h.register("idle", time.Second, false) // registered, never run
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	w := h.Watch("dispatcher", workerFunc(func(context.Context) error { return errors.New("listener lost") }))
	go func() { defer close(done); _ = w.Run(ctx) }()
	deadline := time.Now().Add(10 * time.Second)
	for len(h.Check()) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the stopped worker never showed")
		}
		time.Sleep(5 * time.Millisecond)
	}
	clk.Advance(time.Hour)
	if got := h.Check(); len(got) != 1 || got[0] != "dispatcher" {
		t.Fatalf("stuck: %v", got)
	}
	if !strings.Contains(logs.String(), "listener lost") {
		t.Fatalf("the error is not logged:\n%s", logs.String())
	}
	cancel()
	<-done
}

// TestHealthWorkerThatPanics: a panic in a worker's goroutine ended the whole process (every
// request in flight with it, and the next start met the same panic). A watched worker that
// panics is stuck at once, logged with its stack, and run again; a stepped worker's panicking
// step is a failed step, and its next step runs.
func TestHealthWorkerThatPanics(t *testing.T) {
	clk := &testClock{at: time.Unix(1_800_000_000, 0)}
	var logs syncbuf.Buffer
	h := NewHealth(clk.Now, zerolog.New(&logs))
	h.restartAfter = time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	var runs, steps atomic.Int32
	watched := h.Watch("projector", workerFunc(func(ctx context.Context) error {
		if runs.Add(1) == 1 {
			var m map[string]int
			m["poison event"]++ // a nil map: the panic a bad event once caused
		}
		<-ctx.Done()
		return ctx.Err()
	}))
	stepped := h.Every("window", time.Millisecond, func(context.Context) (bool, error) {
		if steps.Add(1) == 1 {
			panic("step went wrong")
		}
		return true, nil
	})
	var wg sync.WaitGroup
	for _, w := range []Worker{watched, stepped} {
		wg.Go(func() { _ = w.Run(ctx) })
	}
	defer func() { cancel(); wg.Wait() }()
	wait.Until(t, "the panicking workers run again", 10*time.Second, func() bool { return runs.Load() >= 2 && steps.Load() >= 2 })
	if got := h.Check(); len(got) != 1 || got[0] != "projector" {
		t.Fatalf("stuck: %v, want the projector (stopped by its panic)", got)
	}
	for _, w := range h.Workers() {
		if w.Name == "window" && !strings.Contains(w.LastError, "step went wrong") {
			t.Fatalf("the panicking step is not the window's last error: %+v", w)
		}
	}
	out := logs.String()
	if strings.Count(out, "background worker panicked") != 2 || !strings.Contains(out, "assignment to entry in nil map") || !strings.Contains(out, "health_test.go") {
		t.Fatalf("the panics are not logged with their stacks:\n%s", out)
	}
}

// TestHealthWatchedWorkerRecoversAfterARestart: a watched worker whose Run failed once (usage's
// flushes while the database was down) stayed stuck, logged every minute, until the process
// restarted, though it ran again; it recovers once its new run has lasted its stall window, and
// is stuck again at its next failure.
func TestHealthWatchedWorkerRecoversAfterARestart(t *testing.T) {
	clk := &testClock{at: time.Unix(1_800_000_000, 0)}
	var logs syncbuf.Buffer
	h := NewHealth(clk.Now, zerolog.New(&logs))
	h.restartAfter = time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	var runs atomic.Int32
	failAgain := make(chan struct{})
	w := h.Watch("usage", workerFunc(func(ctx context.Context) error {
		switch runs.Add(1) {
		case 1:
			return errors.New("flush: the database does not answer")
		case 2:
			select {
			case <-failAgain:
				return errors.New("flush: the database does not answer again")
			case <-ctx.Done():
			}
		default:
			<-ctx.Done()
		}
		return ctx.Err()
	}))
	done := make(chan struct{})
	go func() { defer close(done); _ = w.Run(ctx) }()
	defer func() { cancel(); <-done }()

	wait.Until(t, "the worker started again", 10*time.Second, func() bool { return runs.Load() >= 2 })
	if got := h.Check(); len(got) != 1 {
		t.Fatalf("stuck %v right after its restart, want usage", got)
	}
	clk.Advance(time.Minute)
	if got := h.Check(); len(got) != 0 {
		t.Fatalf("stuck %v a minute into its new run, want none", got)
	}
	if !strings.Contains(logs.String(), "background worker recovered") {
		t.Fatalf("no recovery logged:\n%s", logs.String())
	}
	close(failAgain)
	wait.Until(t, "the worker's second failure seen", 10*time.Second, func() bool { return runs.Load() >= 3 })
	if got := h.Check(); len(got) != 1 {
		t.Fatalf("stuck %v after its second failure, want usage", got)
	}
}
