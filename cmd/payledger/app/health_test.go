package app

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
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
