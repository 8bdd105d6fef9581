package ratelimit

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"
)

// TestASlash24SharesSixteenTimesAnAddressInTheWideBounds: an IPv4 client was counted by its
// address alone, so a /24 holder had 256 times every per-address bound. In the bounds that count
// it (WideBuckets) the /24 holds IPv4NetworkMultiple (16) times one address's limit: with 1 a
// minute per address, 16 addresses of a /24 spend it, and a 17th address of it is refused by the
// /24's limit, counted in none of its buckets, while an address of another /24 is not. The
// per-minute public limit and the slots (Buckets) still count an IPv4 address alone.
func TestASlash24SharesSixteenTimesAnAddressInTheWideBounds(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	if got, want := at("203.0.113.9").WideBuckets("ip", 3), []Bucket{{"ip:203.0.113.9", 3}, {"ip:203.0.113.0/24", 48}}; !slices.Equal(got, want) {
		t.Fatalf("WideBuckets = %v, want %v", got, want)
	}
	if got, want := at("::ffff:203.0.113.9").WideBuckets("ip", 3), []Bucket{{"ip:203.0.113.9", 3}, {"ip:203.0.113.0/24", 48}}; !slices.Equal(got, want) {
		t.Fatalf("an IPv4-mapped address's WideBuckets = %v, want %v", got, want)
	}
	if got := at("2001:db8:1:2::1"); !slices.Equal(got.WideBuckets("ip", 3), got.Buckets("ip", 3)) {
		t.Fatalf("an IPv6 client's WideBuckets %v differ from its Buckets", got.WideBuckets("ip", 3))
	}
	run := func(t *testing.T, l allower, kind string) {
		ctx := context.Background()
		for host := range IPv4NetworkMultiple {
			a := at(fmt.Sprintf("203.0.113.%d", host+1))
			if r, err := l.AllowAll(ctx, time.Minute, a.WideBuckets(kind, 1)...); err != nil || !r.Allowed {
				t.Fatalf("address %d of the /24: %+v %v", host+1, r, err)
			}
		}
		last := at("203.0.113.200")
		for i := range 2 {
			r, err := l.AllowAll(ctx, time.Minute, last.WideBuckets(kind, 1)...)
			if err != nil || r.Allowed || r.Limit != IPv4NetworkMultiple || r.Key != kind+":203.0.113.0/24" || r.RetryAt.IsZero() {
				t.Fatalf("a 17th address of a spent /24, request %d: %+v %v; want refused by the /24's limit", i, r, err)
			}
		}
		if r, err := l.AllowAll(ctx, time.Minute, last.Buckets(kind, 1)...); err != nil || !r.Allowed {
			t.Fatalf("the same address's Buckets (the public limit): %+v %v; want its address alone counted", r, err)
		}
		if r, err := l.AllowAll(ctx, time.Minute, at("203.0.114.200").WideBuckets(kind, 1)...); err != nil || !r.Allowed {
			t.Fatalf("an address of another /24: %+v %v", r, err)
		}
	}
	t.Run("memory", func(t *testing.T) {
		run(t, NewMemory(func() time.Time { return now }), "subcreate")
	})
	t.Run("redis", func(t *testing.T) {
		r := testRedis(t)
		kind := randomKind()
		run(t, r, kind)
	})
}

// TestARefusedSlash24AddressIsCountedInNeitherBucket: the 17th address of a spent /24 refused by
// the /24 stores no bucket of its own (in-process: all or nothing).
func TestARefusedSlash24AddressIsCountedInNeitherBucket(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	m := NewMemory(func() time.Time { return now })
	ctx := context.Background()
	for host := range IPv4NetworkMultiple {
		if r, _ := m.AllowAll(ctx, time.Minute, at(fmt.Sprintf("198.51.100.%d", host+1)).WideBuckets("k", 1)...); !r.Allowed {
			t.Fatalf("address %d refused", host+1)
		}
	}
	if r, _ := m.AllowAll(ctx, time.Minute, at("198.51.100.77").WideBuckets("k", 1)...); r.Allowed {
		t.Fatal("a 17th address allowed")
	}
	if _, ok := m.tat["k:198.51.100.77"]; ok {
		t.Fatal("the refused address's own bucket was counted")
	}
}
