package ratelimit

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

func TestWiderKey(t *testing.T) {
	for _, tc := range []struct {
		name, key, want string
	}{
		{"a /64 of the public limit", "ip:2001:db8:1:2::/64", "ip:2001:db8:1::/56"},
		{"the last /64 of its /56", "ip:2001:db8:1:ff::/64", "ip:2001:db8:1::/56"},
		{"the next /56", "ip:2001:db8:1:100::/64", "ip:2001:db8:1:100::/56"},
		{"another limit keeps its kind", "subcreate:2001:db8:1:2::/64", "subcreate:2001:db8:1::/56"},
		{"wrong secrets", "authfail:2001:db8:9:9::/64", "authfail:2001:db8:9::/56"},
		{"an IPv4 address", "ip:192.0.2.1", ""},
		{"an IPv4 prefix", "ip:192.0.2.0/24", ""},
		{"an IPv4-mapped /64", "ip:::ffff:0:0/64", ""},
		{"a /48", "ip:2001:db8::/48", ""},
		{"a /56 itself", "ip:2001:db8:1::/56", ""},
		{"an unmasked /64", "ip:2001:db8:1:2::1/64", ""},
		{"one IPv6 address", "ip:2001:db8::1", ""},
		{"an API key", "key:0b9f5e3c-8f53-4a53-9a4b-3ef2c1f0a111", ""},
		{"a wallet", "wallet:0x9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a", ""},
		{"no kind", "2001:db8:1:2::/64", ""},
		{"an empty kind", ":2001:db8:1:2::/64", ""},
		{"garbage", "ip:not an address", ""},
		{"empty", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := widerKey(tc.key)
			if got != tc.want || ok != (tc.want != "") {
				t.Fatalf("widerKey(%q) = %q, %v; want %q", tc.key, got, ok, tc.want)
			}
		})
	}
}

// allower is what both limiters are to these tests.
type allower interface {
	AllowEvery(ctx context.Context, key string, n int, period time.Duration) (Result, error)
}

// slash56Steps are the requests of TestASlash56SharesWiderMultipleTimesTheLimit, in order: the
// remote's /64 (an index in its /56 2001:db8:<net>::/56) and whether it is allowed, with a limit of
// 2 a minute per /64 (8 per /56).
var slash56Steps = []struct {
	name     string
	net, sub int
	allowed  bool
}{
	{"a /64's burst", 1, 0, true},
	{"a /64's burst, second", 1, 0, true},
	{"past the /64's burst", 1, 0, false},
	{"another /64 of the /56", 1, 1, true},
	{"another /64 of the /56, second", 1, 1, true},
	{"a third /64", 1, 2, true},
	{"a third /64, second", 1, 2, true},
	{"a fourth /64", 1, 0xff, true},
	{"a fourth /64, second: the /56 is spent", 1, 0xff, true},
	{"a fifth /64 of the spent /56", 1, 3, false},
	{"a sixth /64 of the spent /56", 1, 0x80, false},
	{"a /64 of the next /56", 2, 0, true},
}

// TestASlash56SharesWiderMultipleTimesTheLimit: each /64 has the limit, and all the /64s of a /56
// together WiderMultiple times it; a request refused by either is counted in neither (the fifth
// /64 was refused by the /56, and the first /64's refused third request took nothing of it).
func TestASlash56SharesWiderMultipleTimesTheLimit(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	run := func(t *testing.T, l allower, prefix string) {
		ctx := context.Background()
		for _, st := range slash56Steps {
			key := fmt.Sprintf("%s:2001:db8:%x:%x::/64", prefix, st.net, st.sub)
			r, err := l.AllowEvery(ctx, key, 2, time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			if r.Allowed != st.allowed {
				t.Fatalf("%s (%s): %+v, want allowed %v", st.name, key, r, st.allowed)
			}
			if !r.Allowed && (r.RetryAt.IsZero() || r.Limit != 2 && r.Limit != 2*WiderMultiple) {
				t.Fatalf("%s: refused without when to retry or with limit %d: %+v", st.name, r.Limit, r)
			}
		}
		// IPv4 addresses are counted alone.
		for i := range 3 {
			r, _ := l.AllowEvery(ctx, fmt.Sprintf("%s:192.0.2.%d", prefix, i), 1, time.Minute)
			if !r.Allowed {
				t.Fatalf("IPv4 address %d: %+v", i, r)
			}
		}
	}
	t.Run("memory", func(t *testing.T) {
		m := NewMemory(func() time.Time { return now })
		run(t, m, "ip")
		if r, _ := m.AllowEvery(context.Background(), "ip:2001:db8:1:0::/64", 2, time.Minute); r.Allowed || r.Limit != 2 {
			t.Fatalf("the first /64 again: %+v, want refused by its own limit", r)
		}
		if r, _ := m.AllowEvery(context.Background(), "ip:2001:db8:1:4::/64", 2, time.Minute); r.Allowed || r.Limit != 8 {
			t.Fatalf("a new /64: %+v, want refused by the /56's limit of 8", r)
		}
		now = now.Add(time.Minute)
		if r, _ := m.AllowEvery(context.Background(), "ip:2001:db8:1:3::/64", 2, time.Minute); !r.Allowed {
			t.Fatalf("a minute later: %+v, want the /56 whole again", r)
		}
	})
	t.Run("redis", func(t *testing.T) {
		r := testRedis(t)
		// A kind of its own (lower-case letters, as kinds are): a shared Redis keeps other runs' keys.
		kind := strings.Map(func(r rune) rune { return 'a' + r%26 }, rand.Text())
		run(t, r, kind)
	})
}

// testRedis is a Redis limiter on PAYLEDGER_TEST_REDIS_URL (default: the local Redis), or a skip.
func testRedis(t *testing.T) *Redis {
	t.Helper()
	url := os.Getenv("PAYLEDGER_TEST_REDIS_URL")
	if url == "" {
		url = "redis://127.0.0.1:6379/0"
	}
	opts, _ := redis.ParseURL(url)
	probe := redis.NewClient(opts)
	defer probe.Close()
	if err := probe.Ping(context.Background()).Err(); err != nil {
		t.Skipf("no Redis answers at %s (%v)", url, err)
	}
	r, client, err := NewRedis(url, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	return r
}

// TestAllowEveryCountsOverItsPeriod: n per hour is a burst of n, then one every hour/n.
func TestAllowEveryCountsOverItsPeriod(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	m := NewMemory(func() time.Time { return now })
	ctx := context.Background()
	for i := range 4 {
		if r, _ := m.AllowEvery(ctx, "subcreate:192.0.2.1", 4, time.Hour); !r.Allowed || r.Remaining != 3-i || r.Limit != 4 {
			t.Fatalf("creation %d: %+v", i, r)
		}
	}
	r, _ := m.AllowEvery(ctx, "subcreate:192.0.2.1", 4, time.Hour)
	if r.Allowed || !r.RetryAt.Equal(now.Add(15*time.Minute)) {
		t.Fatalf("a fifth within the hour: %+v, want refused until +15 min", r)
	}
	now = now.Add(14 * time.Minute)
	if r, _ := m.AllowEvery(ctx, "subcreate:192.0.2.1", 4, time.Hour); r.Allowed {
		t.Fatalf("14 minutes later: %+v, want still refused", r)
	}
	now = now.Add(time.Minute)
	if r, _ := m.AllowEvery(ctx, "subcreate:192.0.2.1", 4, time.Hour); !r.Allowed {
		t.Fatalf("15 minutes later: %+v, want one more", r)
	}
}

// TestALimitAboveOneANanosecondDoesNotFail: 60,000,000,001 a minute made the interval zero, and
// every request a division by zero (a panic, answered 500).
func TestALimitAboveOneANanosecondDoesNotFail(t *testing.T) {
	m := NewMemory(time.Now)
	for range 3 {
		if r, err := m.Allow(context.Background(), "ip:192.0.2.1", 60_000_000_001); err != nil || !r.Allowed {
			t.Fatalf("%+v %v", r, err)
		}
	}
}
