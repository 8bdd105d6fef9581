package ratelimit

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// TestASlash48SharesWiderMultipleTimesASlash56: a /48 holder (a tunnel broker's free allocation)
// has 256 /56s, and counted per /56 alone had 256 times a /56's share, 1,024 times one client's.
// Now its /48 holds WiderMultiple times a /56's: with 1 a minute per /64, four /56s with four /64s
// each spend the /48 (16), and a fifth /56 of it is refused by the /48's limit, while a /56 of
// another /48 is not. A refused request is counted in none of its buckets.
func TestASlash48SharesWiderMultipleTimesASlash56(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	run := func(t *testing.T, l allower, kind string) {
		ctx := context.Background()
		for net := range WiderMultiple {
			for sub := range WiderMultiple {
				a := at(fmt.Sprintf("2001:db8:4:%x%02x::1", net, sub))
				if r, err := l.AllowAll(ctx, time.Minute, a.Buckets(kind, 1)...); err != nil || !r.Allowed {
					t.Fatalf("/56 %d, /64 %d: %+v %v", net, sub, r, err)
				}
			}
		}
		fifth := at("2001:db8:4:ff00::1")
		for i := range 2 {
			r, err := l.AllowAll(ctx, time.Minute, fifth.Buckets(kind, 1)...)
			if err != nil || r.Allowed || r.Limit != WiderMultiple*WiderMultiple || r.Key != kind+":2001:db8:4::/48" || r.RetryAt.IsZero() {
				t.Fatalf("a fifth /56 of a spent /48, request %d: %+v %v; want refused by the /48's limit", i, r, err)
			}
		}
		if r, err := l.AllowAll(ctx, time.Minute, at("2001:db8:5:ff00::1").Buckets(kind, 1)...); err != nil || !r.Allowed {
			t.Fatalf("a /56 of another /48: %+v %v", r, err)
		}
	}
	t.Run("memory", func(t *testing.T) {
		m := NewMemory(func() time.Time { return now })
		run(t, m, "ip")
		for _, k := range []string{"ip:2001:db8:4:ff00::/64", "ip:2001:db8:4:ff00::/56"} {
			if _, ok := m.tat[k]; ok {
				t.Fatalf("the refused client's bucket %s was counted", k)
			}
		}
	})
	t.Run("redis", func(t *testing.T) {
		r := testRedis(t)
		kind := randomKind()
		run(t, r, kind)
		n, err := r.client.Exists(context.Background(), redisPrefix+kind+":2001:db8:4:ff00::/64", redisPrefix+kind+":2001:db8:4:ff00::/56").Result()
		if err != nil || n != 0 {
			t.Fatalf("%d of the refused client's buckets stored (%v)", n, err)
		}
	})
}
