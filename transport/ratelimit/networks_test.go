package ratelimit

import (
	"context"
	"crypto/rand"
	"fmt"
	"net/netip"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestNewAddressBuildsItsNetworks: the client's key and the networks counted around it are built
// from its address at once; nothing parses a key back (the limiters parsed "<kind>:<prefix>/64"
// to find its /56, and the stream slots did the same).
func TestNewAddressBuildsItsNetworks(t *testing.T) {
	for _, tc := range []struct {
		name, addr string
		want       []Bucket
	}{
		{"an IPv6 address", "2001:db8:1:2::1", []Bucket{{"ip:2001:db8:1:2::/64", 3}, {"ip:2001:db8:1::/56", 12}, {"ip:2001:db8:1::/48", 48}}},
		{"the last /64 of its /56", "2001:db8:1:ff:aa::9", []Bucket{{"ip:2001:db8:1:ff::/64", 3}, {"ip:2001:db8:1::/56", 12}, {"ip:2001:db8:1::/48", 48}}},
		{"the next /56", "2001:db8:1:100::1", []Bucket{{"ip:2001:db8:1:100::/64", 3}, {"ip:2001:db8:1:100::/56", 12}, {"ip:2001:db8:1::/48", 48}}},
		{"the next /48", "2001:db8:2::1", []Bucket{{"ip:2001:db8:2::/64", 3}, {"ip:2001:db8:2::/56", 12}, {"ip:2001:db8:2::/48", 48}}},
		{"a zone is dropped", "fe80::1%eth0", []Bucket{{"ip:fe80::/64", 3}, {"ip:fe80::/56", 12}, {"ip:fe80::/48", 48}}},
		{"an IPv4 address", "192.0.2.1", []Bucket{{"ip:192.0.2.1", 3}}},
		{"an IPv4-mapped address", "::ffff:192.0.2.1", []Bucket{{"ip:192.0.2.1", 3}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := NewAddress(netip.MustParseAddr(tc.addr)).Buckets("ip", 3)
			if !slices.Equal(got, tc.want) {
				t.Fatalf("NewAddress(%s).Buckets = %v, want %v", tc.addr, got, tc.want)
			}
		})
	}
	if got := UnparsedAddress("not an address").Buckets("ip", 3); !slices.Equal(got, []Bucket{{"ip:not an address", 3}}) {
		t.Fatalf("an unparsed address: %v, want counted alone", got)
	}
	if got := NewAddress(netip.Addr{}).Buckets("ip", 3); len(got) != 1 {
		t.Fatalf("the zero address: %v, want counted alone", got)
	}
}

// TestAKeyIsCountedAsItIsNamed: a key given to AllowEvery is counted alone, whatever it looks
// like; only an Address's buckets count the networks around it (the limiters used to read a /56
// into any key that looked like "<kind>:<IPv6 /64>").
func TestAKeyIsCountedAsItIsNamed(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	m := NewMemory(func() time.Time { return now })
	ctx := context.Background()
	for sub := range WiderMultiple + 1 {
		key := fmt.Sprintf("ip:2001:db8:1:%x::/64", sub)
		if r, err := m.AllowEvery(ctx, key, 1, time.Minute); err != nil || !r.Allowed || r.Key != key {
			t.Fatalf("key %s: %+v %v, want allowed alone", key, r, err)
		}
	}
	if _, ok := m.tat["ip:2001:db8:1::/56"]; ok {
		t.Fatal("a /56 bucket was read into a key")
	}
}

// allower is what both limiters are to these tests.
type allower interface {
	AllowEvery(ctx context.Context, key string, n int, period time.Duration) (Result, error)
	AllowAll(ctx context.Context, period time.Duration, buckets ...Bucket) (Result, error)
}

// at is the client at the IPv6 address text.
func at(text string) Address { return NewAddress(netip.MustParseAddr(text)) }

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
			key := fmt.Sprintf("2001:db8:%x:%x::1", st.net, st.sub)
			r, err := l.AllowAll(ctx, time.Minute, at(key).Buckets(prefix, 2)...)
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
			r, _ := l.AllowAll(ctx, time.Minute, at(fmt.Sprintf("192.0.2.%d", i)).Buckets(prefix, 1)...)
			if !r.Allowed {
				t.Fatalf("IPv4 address %d: %+v", i, r)
			}
		}
	}
	t.Run("memory", func(t *testing.T) {
		m := NewMemory(func() time.Time { return now })
		run(t, m, "ip")
		if r, _ := m.AllowAll(context.Background(), time.Minute, at("2001:db8:1:0::1").Buckets("ip", 2)...); r.Allowed || r.Limit != 2 {
			t.Fatalf("the first /64 again: %+v, want refused by its own limit", r)
		}
		if r, _ := m.AllowAll(context.Background(), time.Minute, at("2001:db8:1:4::1").Buckets("ip", 2)...); r.Allowed || r.Limit != 8 {
			t.Fatalf("a new /64: %+v, want refused by the /56's limit of 8", r)
		}
		now = now.Add(time.Minute)
		if r, _ := m.AllowAll(context.Background(), time.Minute, at("2001:db8:1:3::1").Buckets("ip", 2)...); !r.Allowed {
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
