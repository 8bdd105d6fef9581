package wait_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/payledger/payledger/internal/wait"
)

func TestUntilReturnsOnceTheConditionHolds(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	wait.Until(t, "the third call", 10*time.Second, func() bool { return calls.Add(1) == 3 })
	if n := calls.Load(); n != 3 {
		t.Fatalf("cond was called %d times, want 3", n)
	}
}

// fatalRecorder is a testing.TB whose Fatalf records instead of ending the test.
type fatalRecorder struct {
	testing.TB
	failed string
}

func (r *fatalRecorder) Helper() {}
func (r *fatalRecorder) Fatalf(format string, args ...any) {
	r.failed = format
	panic(r)
}

func TestUntilFailsAfterTheTimeout(t *testing.T) {
	t.Parallel()
	r := &fatalRecorder{TB: t}
	func() {
		defer func() {
			if p := recover(); p != r {
				panic(p)
			}
		}()
		wait.Until(r, "never", 20*time.Millisecond, func() bool { return false })
	}()
	if r.failed == "" {
		t.Fatal("Until returned on a condition that never held")
	}
}
