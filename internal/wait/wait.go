// Package wait is how the tests wait: for a condition, with a deadline, never for a stretch of
// time. One poll loop here instead of one per test file, so a slow machine only makes a test
// slower, and a test cannot pass without checking what it waited for.
package wait

import (
	"testing"
	"time"
)

// Until polls cond until it holds; the test fails, naming what, when it still does not after
// timeout.
func Until(tb testing.TB, what string, timeout time.Duration, cond func() bool) {
	tb.Helper()
	if !Poll(timeout, cond) {
		tb.Fatalf("timed out after %s waiting for %s", timeout, what)
	}
}

// Poll calls cond, first every millisecond and backing off to every 100 ms, until it holds
// (true) or timeout has passed (false, for a test that reports without stopping).
func Poll(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	every := time.Millisecond
	timer := time.NewTimer(every)
	defer timer.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		<-timer.C
		every = min(2*every, 100*time.Millisecond)
		timer.Reset(every)
	}
	return true
}
