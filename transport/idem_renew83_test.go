package transport

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/payledger/payledger/internal/wait"
)

// A keyed request that runs longer than the key's lock keeps its key: it renews the lock while it
// runs, so a duplicate sent meanwhile waits for its answer and replays it. Before stop 83 the lock
// (then 60 s) was never renewed: past it, the duplicate took the key over as if the first request's
// instance had died, and answered that the outcome was unknown while the first was still running.
// The lock could not be short, so a retry after a real crash waited a minute for its 409.
func TestAKeyedRequestLongerThanTheLockKeepsItsKey(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	e.srv.idemLock = 3 * time.Second
	release := make(chan struct{})
	slow := e.srv.idempotent(func(c echo.Context) error {
		<-release
		return c.JSON(http.StatusCreated, map[string]string{"made": "once"})
	})
	const wallet = "0x00000000000000000000000000000000000000aa"
	send := func() *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, "/api/slow", strings.NewReader(`{"a":1}`))
		req.Header.Set("Idempotency-Key", "long-running")
		req = req.WithContext(context.WithValue(req.Context(), principalKey{}, Principal{Wallet: wallet}))
		rec := httptest.NewRecorder()
		c := echo.New().NewContext(req, rec)
		c.SetPath("/api/slow")
		if err := slow(c); err != nil {
			c.Error(err)
		}
		return rec
	}
	first, dup := make(chan *httptest.ResponseRecorder, 1), make(chan *httptest.ResponseRecorder, 1)
	go func() { first <- send() }()
	var claimed time.Time
	wait.Until(t, "the first request's claim", 10*time.Second, func() bool {
		err := e.pool.QueryRow(context.Background(), `SELECT created_at FROM idempotent_responses WHERE key = 'long-running'`).Scan(&claimed)
		return err == nil
	})
	// renewedPast waits until the lock was renewed to past at + the lock + 1 s: more than a lock
	// has gone by since at, so an unrenewed claim from then would have run out.
	renewedPast := func(what string, at time.Time) {
		t.Helper()
		wait.Until(t, what, 30*time.Second, func() bool {
			var renewed bool
			if err := e.pool.QueryRow(context.Background(), `SELECT locked_until > $1::timestamptz + interval '4 seconds'
				FROM idempotent_responses WHERE key = 'long-running'`, at).Scan(&renewed); err != nil {
				t.Fatal(err)
			}
			return renewed
		})
	}
	renewedPast("the running request's lock renewed past its first", claimed)
	var sent time.Time
	if err := e.pool.QueryRow(context.Background(), `SELECT now()`).Scan(&sent); err != nil {
		t.Fatal(err)
	}
	go func() { dup <- send() }()
	renewedPast("the lock renewed past a lock after the duplicate was sent", sent)
	select {
	case rec := <-dup:
		t.Fatalf("the duplicate did not wait for the running request: %d %s", rec.Code, rec.Body)
	default: // waiting for the first answer, not taken over
	}
	close(release)
	if rec := <-first; rec.Code != http.StatusCreated {
		t.Fatalf("the first request: %d %s", rec.Code, rec.Body)
	}
	rec := <-dup
	if rec.Code != http.StatusCreated || rec.Header().Get(idemReplayed) != "true" || !strings.Contains(rec.Body.String(), `"once"`) {
		t.Fatalf("the duplicate: %d %s replayed %q, want the first answer replayed", rec.Code, rec.Body, rec.Header().Get(idemReplayed))
	}
}
