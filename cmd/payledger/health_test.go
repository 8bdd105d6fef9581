package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/cmd/payledger/app/web"
	"github.com/payledger/payledger/settlement"
	"github.com/payledger/payledger/settlement/pgstore"
)

// fakeClock is a clock the test moves.
type fakeClock struct {
	mu sync.Mutex
	at time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.at }
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.at = c.at.Add(d)
}

// TestStuckDepositDetectorShowsInHealthzAndLog: a deposit detector whose cursor is ahead of the
// chain's head (a database kept from a previous development chain) reads no block (each step
// fails: ErrCursorAhead); after 10 of its intervals (at least 30 s) /healthz answers degraded
// naming it, and the log says so with the step's error, once
// a minute, until it recovers. (It used to wait in silence.)
func TestStuckDepositDetectorShowsInHealthzAndLog(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg := testServiceConfig(t, nil)
	cfg.DevChain = "auto"
	dev, err := autoDevChain(ctx, &cfg, "auto", 0, zerolog.Nop(), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	rpc, err := dialChain(ctx, cfg, zerolog.Nop())
	if err != nil || rpc == nil {
		t.Fatalf("dial: %v", err)
	}
	defer rpc.Close()
	clk := &fakeClock{at: time.Now()}
	logs := &syncBuffer{}
	svc := buildService(t, ctx, cfg, rpc, func(c *web.Config) { c.App.Now, c.App.Log = clk.Now, zerolog.New(logs) })
	head, err := rpc.Backend().BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := pgstore.NewDeposits(svc.Config.Pool).SaveCursor(ctx, "deposits", settlement.DepositCursor{Number: head + 1_000_000}); err != nil {
		t.Fatal(err)
	}
	srv, err := svc.Server()
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	defer func() { cancel(); wg.Wait() }()
	wg.Go(func() { _ = svc.Processes.DepositDetector.Run(ctx) })

	healthz := func() (string, []string) {
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/healthz", nil))
		var out struct {
			Status string   `json:"status"`
			Stuck  []string `json:"stuck"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
			t.Fatalf("healthz: %s", rec.Body)
		}
		return out.Status, out.Stuck
	}
	// A step of a detector whose cursor is ahead fails (settlement.ErrCursorAhead, issue 40):
	// its last step is its last error.
	steps := func() time.Time {
		for _, w := range svc.Health.Workers() {
			if w.Name == "deposit detection" {
				if w.LastErrorAt.After(w.LastStep) {
					return w.LastErrorAt
				}
				return w.LastStep
			}
		}
		t.Fatal("no deposit detection worker")
		return time.Time{}
	}
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for !ok() {
			if time.Now().After(deadline) {
				t.Fatalf("%s; log:\n%s", what, logs.String())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	waitFor("the detector never stepped", func() bool { return !steps().IsZero() })
	// Nothing is stuck at start; ok may take a moment on a loaded machine (the datastore's ping
	// has one second), and the fake clock does not move while we wait.
	waitFor("healthz at start is not ok", func() bool { s, stuck := healthz(); return s == "ok" && len(stuck) == 0 })
	clk.Advance(31 * time.Second) // more than 10 intervals of 1 s, and the 30 s floor
	before := steps()
	waitFor("no step after the clock moved", func() bool { return steps().After(before) })
	status, stuck := healthz()
	if status != "degraded" || len(stuck) != 1 || stuck[0] != "deposit detection" {
		t.Fatalf("healthz of a stuck detector: %s %v", status, stuck)
	}
	if n := strings.Count(logs.String(), `"message":"background worker stuck"`); n != 1 || !strings.Contains(logs.String(), `"worker":"deposit detection"`) ||
		!strings.Contains(logs.String(), "ahead of the chain's head") {
		t.Fatalf("%d stuck lines in the log:\n%s", n, logs.String())
	}
	clk.Advance(61 * time.Second) // a minute later, still stuck: logged again
	before = steps()
	waitFor("no step after the second move", func() bool { return steps().After(before) })
	if n := strings.Count(logs.String(), `"message":"background worker stuck"`); n != 2 {
		t.Fatalf("%d stuck lines after a minute more, want 2:\n%s", n, logs.String())
	}

	// The cursor set back to the chain: the detector reads blocks again and recovers.
	if err := pgstore.NewDeposits(svc.Config.Pool).SaveCursor(ctx, "deposits", settlement.DepositCursor{Number: head}); err != nil {
		t.Fatal(err)
	}
	waitFor("the detector did not recover", func() bool { s, _ := healthz(); return s == "ok" })
	if !strings.Contains(logs.String(), `"message":"background worker recovered"`) {
		t.Fatalf("no recovery line:\n%s", logs.String())
	}
}
