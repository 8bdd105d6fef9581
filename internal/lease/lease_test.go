package lease

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/payledger/payledger/internal/wait"
)

// Hold renews until stopped, passes each failure on and keeps renewing after one; stop may be
// called twice, and once it has returned the renewing goroutine is gone (no renewal can follow).
func TestHoldRenewsUntilStopped(t *testing.T) {
	var renewals, failures atomic.Int32
	stop := Hold(context.Background(), time.Millisecond, func(context.Context) error {
		if renewals.Add(1) == 2 {
			return errors.New("the database went away")
		}
		return nil
	}, func(error) { failures.Add(1) })
	wait.Until(t, "renewals past a failed one", 10*time.Second, func() bool { return renewals.Load() >= 4 })
	stop()
	stop()
	if failures.Load() != 1 {
		t.Fatalf("%d failures passed on, want 1", failures.Load())
	}
}
