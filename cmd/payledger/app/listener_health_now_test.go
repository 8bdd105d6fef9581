package app_test

import (
	"bytes"
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/cmd/payledger/app"
	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/internal/cache/cachetest"
	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/migrations/pgtest"
)

// TestHealthNamesASilentCacheListenerAtOnce: with the service's own bounds (none shortened), a
// cache listener that hears nothing is named by /healthz as soon as its first silence is found
// (its caches are off now), and no longer once it hears again. Before, it was named only after
// it had failed for a minute (Health's failingFor), which fits a projector's retries, not caches
// that are off on this instance meanwhile.
func TestHealthNamesASilentCacheListenerAtOnce(t *testing.T) {
	t.Parallel()
	direct := pgtest.Pool(t)
	pool, proxy := cachetest.Pool(t, direct)
	svc, err := app.Build(context.Background(), app.Config{Store: postgres.New(pool), Pool: pool, Now: time.Now, Log: zerolog.Nop(),
		Metrics: noMetrics{}, SecretsKey: bytes.Repeat([]byte{7}, 32), JournalPath: filepath.Join(t.TempDir(), "journal.jsonl")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = svc.Journal.Close() })
	runWorkers(t, svc)

	proxy.DropNotifications(true)
	wait.Until(t, "the deaf listener named by /healthz within seconds", 15*time.Second, func() bool {
		return slices.Contains(svc.Health.Check(), "cache invalidations")
	})
	proxy.DropNotifications(false)
	wait.Until(t, "the listener to recover once it hears", 30*time.Second, func() bool {
		return !slices.Contains(svc.Health.Check(), "cache invalidations")
	})
}
