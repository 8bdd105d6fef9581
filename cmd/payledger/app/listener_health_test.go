package app_test

import (
	"bytes"
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/cmd/payledger/app"
	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/internal/cache/cachetest"
	"github.com/payledger/payledger/internal/syncbuf"
	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/migrations/pgtest"
)

// TestHealthNamesASilentCacheListener: every connection the cache listener makes hears nothing
// (a path that stays broken, as PgBouncer in transaction mode). Each is found silent by its probe
// and logged as an error, and once the listener has not heard its probe for
// the failing bound (shortened here) /healthz names "cache invalidations"; when notifications
// come through again it recovers. Before, the app's health said ok: the listener's Run never
// returned, and it trusted its connection.
func TestHealthNamesASilentCacheListener(t *testing.T) {
	t.Parallel()
	direct := pgtest.Pool(t)
	pool, proxy := cachetest.Pool(t, direct)
	logs := &syncbuf.Buffer{}
	svc, err := app.Build(context.Background(), app.Config{Store: postgres.New(pool), Pool: pool, Now: time.Now, Log: zerolog.New(logs),
		Metrics: noMetrics{}, SecretsKey: bytes.Repeat([]byte{7}, 32), JournalPath: filepath.Join(t.TempDir(), "journal.jsonl")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = svc.Journal.Close() })
	app.SetFailingFor(svc.Health, 3*time.Second)
	runWorkers(t, svc)

	proxy.DropNotifications(true)
	wait.Until(t, "the deaf listener named by /healthz", 60*time.Second, func() bool {
		return slices.Contains(svc.Health.Check(), "cache invalidations")
	})
	if !strings.Contains(logs.String(), `"level":"error","component":"cache invalidations"`) || !strings.Contains(logs.String(), "hears nothing") {
		t.Fatalf("the silence was not logged as an error:\n%s", logs.String())
	}
	proxy.DropNotifications(false)
	wait.Until(t, "the listener to recover once it hears", 60*time.Second, func() bool {
		return !slices.Contains(svc.Health.Check(), "cache invalidations")
	})
}
