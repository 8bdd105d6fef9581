package main

import (
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/payledger/payledger/eventstore/journal"
	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/migrations/pgtest"
)

// databaseExists reports whether the test server holds a database named name.
func databaseExists(t *testing.T, name string) bool {
	t.Helper()
	ctx := context.Background()
	c, err := pgx.Connect(ctx, pgtest.Server())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	var n int
	if err := c.QueryRow(ctx, `SELECT count(*) FROM pg_database WHERE datname = $1`, name).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n > 0
}

// unstartedServe is serve's environment in development with the development chain on (as `make
// run`), on a database that does not exist yet (serve would create it).
func unstartedServe(t *testing.T) (vars map[string]string, database string) {
	dir := t.TempDir()
	database = fmt.Sprintf("payledger_test_unstarted_%x", rand.Uint64())
	t.Cleanup(func() { // only a failing run creates it
		if c, err := pgx.Connect(context.Background(), pgtest.Server()); err == nil {
			_, _ = c.Exec(context.Background(), "DROP DATABASE IF EXISTS "+database+" WITH (FORCE)")
			_ = c.Close(context.Background())
		}
	})
	u, err := url.Parse(pgtest.Server())
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + database
	return map[string]string{
		"DATABASE_URL": u.String(), "EMBEDDED_POSTGRES": "off",
		"DEV_DATA_DIR": dir, "JOURNAL_PATH": filepath.Join(dir, "journal.jsonl"),
		"HTTP_ADDR": fmt.Sprintf("127.0.0.1:%d", freePort(t)), "SECRETS_KEY": hex.EncodeToString(make([]byte, 32)),
	}, database
}

// refusedStart checks that serve exited 1 naming want, and that nothing started: no development
// chain, no database created, nothing served.
func refusedStart(t *testing.T, code int, out, want, database string) {
	t.Helper()
	if code != 1 || !strings.Contains(out, want) {
		t.Fatalf("exit %d, want 1 naming %q:\n%s", code, want, out)
	}
	for _, started := range []string{"development chain", "serving", "migrations", "capabilities"} {
		if strings.Contains(out, started) {
			t.Errorf("the refused start logged %q:\n%s", started, out)
		}
	}
	if databaseExists(t, database) {
		t.Errorf("the refused start created database %s", database)
	}
}

// TestServeOnATakenPortStartsNothing (stop 64): serve on a port another process holds (`make run`
// twice) started a development chain, created and migrated the database, built the service and
// ran every background worker, logged "serving", and only then failed on the port. It now fails at
// once, naming the variable, before anything starts; a port taken after that check fails before
// the workers start (listen comes before startWorkers).
func TestServeOnATakenPortStartsNothing(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"HTTP_ADDR", "METRICS_ADDR", "PPROF_ADDR"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			vars, database := unstartedServe(t)
			if name != "HTTP_ADDR" {
				vars[name] = fmt.Sprintf("127.0.0.1:%d", freePort(t))
			}
			held, err := net.Listen("tcp", vars[name])
			if err != nil {
				t.Fatal(err)
			}
			defer held.Close()
			out := &syncBuffer{}
			code := run(context.Background(), []string{"serve"}, env(vars), out, out)
			refusedStart(t, code, out.String(), name+": listen tcp "+vars[name], database)
		})
	}
}

// TestSecondServeOnTheSameJournalStartsNothing (stop 64): a second `make run` in the same
// checkout (the same JOURNAL_PATH) started its own development chain, found the shared database
// following the first one's, and started the deposits afresh on its chain (the first instance's
// open receipts marked as on a chain gone) before the journal's lock refused it. The lock is now
// taken first.
func TestSecondServeOnTheSameJournalStartsNothing(t *testing.T) {
	t.Parallel()
	vars, database := unstartedServe(t)
	first, err := journal.Open(vars["JOURNAL_PATH"])
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	out := &syncBuffer{}
	code := run(context.Background(), []string{"serve"}, env(vars), out, out)
	refusedStart(t, code, out.String(), "journal in use by another process", database)
}

// TestSignalDuringTheStartStopsServe (stop 64): SIGTERM while serve starts (here: waiting on a
// database server that never answers) ended it with "failed: context canceled" and exit 1, as if
// the start had failed: systemd marks such a unit failed, and an operator reads an error. A stop
// the operator asked for now exits 0, saying the signal came during the start.
func TestSignalDuringTheStartStopsServe(t *testing.T) {
	t.Parallel()
	hung, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer hung.Close()
	accepted := make(chan net.Conn, 4)
	go func() {
		for {
			c, err := hung.Accept()
			if err != nil {
				return
			}
			accepted <- c // held, never answered
		}
	}()
	vars, _ := unstartedServe(t)
	vars["DATABASE_URL"] = "postgres://postgres@" + hung.Addr().String() + "/payledger?sslmode=disable"
	vars["DEVCHAIN"] = "off"
	ctx, signal := context.WithCancel(context.Background())
	out := &syncBuffer{}
	exit := make(chan int, 1)
	go func() { exit <- run(ctx, []string{"serve"}, env(vars), out, out) }()
	select {
	case c := <-accepted:
		defer c.Close()
	case <-time.After(time.Minute):
		t.Fatalf("serve never reached the database:\n%s", out.String())
	}
	signal()
	var code int
	select {
	case code = <-exit:
	case <-time.After(time.Minute):
		t.Fatalf("serve did not stop:\n%s", out.String())
	}
	if code != 0 || !strings.Contains(out.String(), "stopped by a signal during the start") || strings.Contains(out.String(), `"level":"error"`) {
		t.Fatalf("exit %d, want 0 with the signal named and no error:\n%s", code, out.String())
	}
}

// TestExportInFlightAtTheSignalIsServed (stop 64): the exports' pool was opened on serve's
// signal context and closed at the signal, so an export request in flight that had not yet taken
// its connection (here: held on its key's lookup) failed during the drain that was meant to
// finish it. The pool now closes when serve returns, after the drain.
func TestExportInFlightAtTheSignalIsServed(t *testing.T) {
	t.Parallel()
	vars := map[string]string{"DATABASE_URL": pgtest.URL(t), "SECRETS_KEY": strings.Repeat("ab", 32), "DEVCHAIN": "off"}
	ctx := context.Background()
	key := createKey(t, ctx, vars, "0x"+strings.Repeat("cd", 20), "receipts:read", "export")
	base, out, stop := startServeStoppable(t, vars)
	defer stop()

	tx, answered := holdExportOnItsKey(t, vars, base, key)
	stopped := make(chan struct{})
	go func() { defer close(stopped); stop() }() // the signal: serve drains the export
	wait.Until(t, "serve draining", 30*time.Second, func() bool { return strings.Contains(out.String(), "draining in-flight requests") })
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	a := <-answered
	<-stopped
	if a.err != nil || a.status != http.StatusOK || !strings.HasPrefix(a.body, "receiptId,") {
		t.Fatalf("the export in flight at the signal: %d %v %.300q", a.status, a.err, a.body)
	}
}

// holdExportOnItsKey starts an export request on base that waits on its key's lookup (the API
// keys' table locked by the returned transaction) and returns once it waits; answered gets its
// outcome.
func holdExportOnItsKey(t *testing.T, vars map[string]string, base, key string) (pgx.Tx, <-chan exportAnswer) {
	t.Helper()
	ctx := context.Background()
	pool := pgtest.PoolFor(t, vars["DATABASE_URL"])
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tx.Rollback(ctx) })
	if _, err := tx.Exec(ctx, `LOCK TABLE api_keys IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	answered := make(chan exportAnswer, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodGet, base+"/api/exports/receipts.csv", nil)
		req.Header.Set("Ocp-Apim-Subscription-Key", key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			answered <- exportAnswer{err: err}
			return
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		answered <- exportAnswer{resp.StatusCode, string(body), err}
	}()
	wait.Until(t, "the export waiting on its key's lookup", 30*time.Second, func() bool {
		var n int
		err := pool.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE wait_event_type = 'Lock' AND query LIKE '%FROM api_keys%'`).Scan(&n)
		return err == nil && n > 0
	})
	return tx, answered
}

// exportAnswer is an export request's outcome.
type exportAnswer struct {
	status int
	body   string
	err    error
}

// TestDrainPastItsDeadlineCutsTheRest (stop 64): a request still running at the drain's deadline
// (here: waiting on a lock) was left running while serve stopped the workers and closed its pool,
// and the pool's close waited for its connection: serve stopped only when the request ended, for
// as long as it lasted. The requests left at the deadline are now cut (their contexts cancelled)
// and serve stops, exit 1 ("drain http server"). Not parallel: it shortens drainTimeout.
func TestDrainPastItsDeadlineCutsTheRest(t *testing.T) {
	defer func(d time.Duration) { drainTimeout = d }(drainTimeout)
	drainTimeout = time.Second
	vars := map[string]string{"DATABASE_URL": pgtest.URL(t), "SECRETS_KEY": strings.Repeat("ab", 32), "DEVCHAIN": "off"}
	key := createKey(t, context.Background(), vars, "0x"+strings.Repeat("ce", 20), "receipts:read", "export")
	base, out, stop := startServeStoppable(t, vars)
	_, answered := holdExportOnItsKey(t, vars, base, key) // held until the test ends

	stop() // fails the test if serve is still running 30 s after the signal
	if t.Failed() {
		return // the request still waits: the lock goes with the test's end
	}
	if a := <-answered; a.err == nil && a.status == http.StatusOK {
		t.Errorf("the request cut at the deadline answered %d %.200q", a.status, a.body)
	}
	if !strings.Contains(out.String(), "drain http server") {
		t.Errorf("a cut drain does not say so:\n%s", tail(out.String(), 3000))
	}
}
