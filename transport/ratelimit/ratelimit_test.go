package ratelimit

import (
	"context"
	"testing"
	"time"
)

func TestMemoryGCRA(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	m := NewMemory(func() time.Time { return now })
	ctx := context.Background()
	for i := range 3 {
		r, _ := m.Allow(ctx, "k", 3)
		if !r.Allowed || r.Remaining != 2-i || r.Limit != 3 {
			t.Fatalf("request %d: %+v", i, r)
		}
	}
	r, _ := m.Allow(ctx, "k", 3)
	if r.Allowed || r.Remaining != 0 || !r.RetryAt.Equal(now.Add(20*time.Second)) {
		t.Fatalf("4th request within the minute: %+v, want denied until +20s", r)
	}
	if other, _ := m.Allow(ctx, "other", 3); !other.Allowed {
		t.Fatal("limits leak between keys")
	}
	now = now.Add(20 * time.Second)
	if r, _ := m.Allow(ctx, "k", 3); !r.Allowed || r.Remaining != 0 {
		t.Fatalf("after one interval: %+v, want one more allowed", r)
	}
	now = now.Add(time.Minute)
	if r, _ := m.Allow(ctx, "k", 3); !r.Allowed || r.Remaining != 2 {
		t.Fatalf("after a full minute: %+v, want the whole burst back", r)
	}
}
