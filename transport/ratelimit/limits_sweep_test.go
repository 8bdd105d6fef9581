package ratelimit

import (
	"context"
	"strconv"
	"testing"
	"time"
)

// Past 100,000 keys the limiter swept its map on every request, and a sweep only drops the keys
// whose minute is over: a client with 100,000 live keys (the /64s of two IPv6 /48s, one request
// each) had every later request of every client walk 100,000 entries under the limiter's one lock.
// A sweep now runs only once the map has grown to twice what the last one left, so its walks cost
// each request a constant share, however many keys are live.
func TestMemorySweepsOnlyAfterTheMapHasGrown(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	m := NewMemory(func() time.Time { return now })
	ctx := context.Background()
	const live = 100_001
	for i := range live {
		if r, _ := m.Allow(ctx, "ip:"+strconv.Itoa(i), 60); !r.Allowed {
			t.Fatalf("key %d: %+v", i, r)
		}
	}
	before := m.sweeps
	for i := range 10_000 {
		if r, _ := m.Allow(ctx, "ip:more"+strconv.Itoa(i), 60); !r.Allowed {
			t.Fatalf("new key %d: %+v", i, r)
		}
	}
	if n := m.sweeps - before; n > 1 {
		t.Fatalf("10,000 requests with %d live keys swept the map %d times, want at most once", live, n)
	}
	// The limits themselves are kept: a live key is still counted, and keys whose minute is over
	// are dropped by the next sweep.
	for range 59 {
		m.Allow(ctx, "ip:0", 60)
	}
	if r, _ := m.Allow(ctx, "ip:0", 60); r.Allowed {
		t.Fatalf("61st request of a key within its minute: %+v, want denied", r)
	}
	now = now.Add(2 * time.Minute)
	for i := 0; m.sweeps == before; i++ {
		if i == 300_000 {
			t.Fatal("no sweep after 300,000 new keys")
		}
		m.Allow(ctx, "ip:late"+strconv.Itoa(i), 60)
	}
	if _, kept := m.tat["ip:0"]; kept || len(m.tat) >= live {
		t.Fatalf("after a sweep two minutes later: %d keys, ip:0 kept %v; want only the new ones", len(m.tat), kept)
	}
}
