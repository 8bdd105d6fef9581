package readmodels

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/migrations/pgtest"
)

// TestUsageFlushFailuresAreReported: a usage flush that keeps failing ends Run with the error,
// for the worker's supervisor to log and /healthz to name; every failure was dropped, and the
// merchants' apiCalls stopped moving in silence. The counts stay in memory and are written by
// the next flush that succeeds.
func TestUsageFlushFailuresAreReported(t *testing.T) {
	t.Parallel()
	pool := pgtest.Pool(t)
	ctx := context.Background()
	u := NewUsage(pool, time.Now)
	u.Every = 5 * time.Millisecond
	const wallet = "0x00000000000000000000000000000000000000aa"
	u.Count(wallet)
	if _, err := pool.Exec(ctx, `ALTER TABLE api_usage RENAME TO api_usage_away`); err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- u.Run(runCtx) }()
	var err error
	wait.Until(t, "Run to end with the flush's error", 10*time.Second, func() bool {
		select {
		case err = <-done:
			return true
		default:
			return false
		}
	})
	if err == nil || !strings.Contains(err.Error(), "flush usage") {
		t.Fatalf("Run ended with %v, want the flush's error", err)
	}
	if _, err := pool.Exec(ctx, `ALTER TABLE api_usage_away RENAME TO api_usage`); err != nil {
		t.Fatal(err)
	}
	if err := u.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if _, all, err := u.Calls(ctx, wallet, time.Now()); err != nil || all != 1 {
		t.Fatalf("%d calls after the flush that succeeded (%v), want 1", all, err)
	}
}
