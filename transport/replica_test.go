package transport

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/payledger/payledger/cmd/payledger/app"
	"github.com/payledger/payledger/migrations/pgtest"
)

// TestReplicaReadsThroughTheConstruction (issue 37 on the one construction): app.Config's
// ReplicaPool is all it takes; the construction builds the router and hands it to the routes. A
// list reads the replica's pool (after waiting for its replay while the caller wrote in the last
// 10 s, at once after that), and a merchant's status read stays on the primary.
func TestReplicaReadsThroughTheConstruction(t *testing.T) {
	t.Parallel()
	e := newAppEnv(t, func(c *app.Config) {
		// The test database's primary stands in for the replica: never in recovery, so it is
		// always current and healthy.
		c.ReplicaPool = pgtest.PoolFor(t, c.Pool.Config().ConnString())
	}, nil, nil)
	r := e.svc.Replica
	if r == nil {
		t.Fatal("app.Config.ReplicaPool set, but the service has no replica router")
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = r.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	waitUntil(t, "the replica probed healthy", 5*time.Second, r.Healthy)

	m := e.merchant(false)
	id := e.receiptFor(m, "5") // a write: the merchant's reads in the next 10 s wait for the replay
	e.status(m, id)
	if used, _, _ := r.Stats(); used != 0 {
		t.Fatalf("a merchant's status read went to the replica (%d reads)", used)
	}
	list := func() {
		t.Helper()
		if rec := e.dev(m, http.MethodGet, "/api/receipts", ""); rec.Code != 200 || !strings.Contains(rec.Body.String(), id) {
			t.Fatalf("list: %d %s", rec.Code, rec.Body)
		}
	}
	// The writer's list waits for the replica's replay, and goes to the primary when that takes
	// longer than ReplicaWait: on a loaded machine (CI runs the packages side by side, with the
	// race detector) the wait's two queries can, so a fall-back is tried again. A writer's read
	// never goes to the replica without the wait.
	for attempt := 1; ; attempt++ {
		list()
		used, waited, primary := r.Stats()
		if used != waited {
			t.Fatalf("the writer's list went to the replica without waiting for its write: replica %d, after a wait %d", used, waited)
		}
		if used == 1 {
			break
		}
		if attempt == 5 {
			t.Fatalf("the writer's list: replica %d, after a wait %d, primary %d in %d tries; want the replica after a wait", used, waited, primary, attempt)
		}
	}
	e.clk.Advance(11 * time.Second)
	list()
	if used, waited, _ := r.Stats(); used != 2 || waited != 1 {
		t.Fatalf("a list 11 s after the write: replica %d, after a wait %d; want 2, 1", used, waited)
	}
}

// writesSeen is a ReplicaRouter that records, for each Wrote, whether the handler had answered.
type writesSeen struct{ answered, before, after int }

func (w *writesSeen) For(ctx context.Context, _ ...string) context.Context { return ctx }
func (w *writesSeen) Wrote(...string) {
	if w.answered > 0 {
		w.after++
	} else {
		w.before++
	}
}

// A write is recorded when it starts and again when it has answered (stop 60: only its start
// was, so a write slower than the router's 10 s memory left its caller's next read on a replica
// that may not have it).
func TestAWriteCountsFromItsAnswerToo(t *testing.T) {
	t.Parallel()
	seen := &writesSeen{}
	s := &Server{replica: seen}
	c := echo.New().NewContext(httptest.NewRequest(http.MethodPost, "/api/orders", nil), httptest.NewRecorder())
	err := s.routeReads(http.MethodPost, "/api/orders")(func(echo.Context) error { seen.answered++; return nil })(c)
	if err != nil || seen.before != 1 || seen.after != 1 {
		t.Fatalf("err %v; recorded %d times before the answer, %d after; want 1 and 1", err, seen.before, seen.after)
	}
}
