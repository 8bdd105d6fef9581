package readmodels

import (
	"context"
	"testing"
	"time"

	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/migrations/pgtest"
)

// TestUsageLastFlushIsBounded: Run's last flush, after its context ended (serve's drain), gives
// up after FinalWait on a database that does not answer (here a lock held on api_usage), keeping
// the counts; it waited for good, and serve's stop with it, until a second signal.
func TestUsageLastFlushIsBounded(t *testing.T) {
	t.Parallel()
	pool := pgtest.Pool(t)
	ctx := context.Background()
	u := NewUsage(pool, time.Now)
	u.Every = time.Hour
	u.FinalWait = 50 * time.Millisecond
	const wallet = "0x00000000000000000000000000000000000000ab"
	u.Count(wallet)
	lock, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = lock.Rollback(ctx) }()
	if _, err := lock.Exec(ctx, `LOCK TABLE api_usage IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- u.Run(runCtx) }()
	cancel()
	var runErr error
	wait.Until(t, "Run's last flush to give up", 30*time.Second, func() bool {
		select {
		case runErr = <-done:
			return true
		default:
			return false
		}
	})
	if runErr == nil {
		t.Fatal("the last flush under a lock succeeded")
	}
	if err := lock.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if err := u.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if _, all, err := u.Calls(ctx, wallet, time.Now()); err != nil || all != 1 {
		t.Fatalf("%d calls after the lock (%v), want the one kept", all, err)
	}
}
