package transport

import (
	"testing"
	"time"
)

// A duplicate of a running request looks at the key after 25 ms, then backs off to 500 ms: at a
// steady 25 ms, one duplicate of a request that held its key for the lock's minute made 2,400
// round trips to the datastore.
func TestIdempotencyDuplicatesBackOff(t *testing.T) {
	t.Parallel()
	want := []time.Duration{25, 50, 100, 200, 400, 500, 500, 500}
	var total time.Duration
	looks := 0
	for polls := 0; total < idemLock; polls++ {
		d := idemPollAfter(polls)
		if polls < len(want) && d != want[polls]*time.Millisecond {
			t.Errorf("wait after look %d: %s, want %s", polls, d, want[polls]*time.Millisecond)
		}
		total += d
		looks++
	}
	if looks > 130 {
		t.Errorf("a duplicate waiting out the %s lock looks %d times, want at most 130", idemLock, looks)
	}
}
