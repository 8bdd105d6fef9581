package transport

import (
	"context"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/payledger/payledger/readmodels"
	"github.com/payledger/payledger/transport/ratelimit"
)

// Rate limits and the instance caches of keys.

func assertLimited(t *testing.T, rec interface {
	Header() http.Header
}, code int, body map[string]any, now time.Time) {
	t.Helper()
	if code != 429 || body["error"] != "rate_limited" {
		t.Fatalf("want 429 rate_limited, got %d %v", code, body)
	}
	reset, ok := body["resetAt"].(float64)
	if !ok || int64(reset) <= now.UnixMilli() {
		t.Fatalf("resetAt %v not in the future", body["resetAt"])
	}
	h := rec.Header()
	if h.Get("X-RateLimit-Limit") == "" || h.Get("X-RateLimit-Remaining") != "0" || h.Get("X-RateLimit-Reset") != strconv.FormatInt(int64(reset), 10) {
		t.Fatalf("headers %v, resetAt %v", h, reset)
	}
}

func TestRateLimits(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(d *testDeps) { d.Config.KeyLimitPerMinute = 3; d.Config.PublicLimitPerMinute = 2 })
	key := e.key("0x"+strings.Repeat("56", 20), "receipts:read")
	h := map[string]string{"Ocp-Apim-Subscription-Key": key}
	for i := range 3 {
		rec := e.do(req{method: http.MethodGet, path: "/api/status/ping", header: h})
		if rec.Code != 200 || rec.Header().Get("X-RateLimit-Limit") != "3" || rec.Header().Get("X-RateLimit-Remaining") != strconv.Itoa(2-i) || rec.Header().Get("X-RateLimit-Reset") == "" {
			t.Fatalf("request %d: %d %v", i, rec.Code, rec.Header())
		}
	}
	rec := e.do(req{method: http.MethodGet, path: "/api/status/ping", header: h})
	assertLimited(t, rec, rec.Code, decode(t, rec), e.clk.Now())
	// Public routes: per client IP.
	body := `{"wallet":"0x` + strings.Repeat("78", 20) + `"}`
	for i := range 2 {
		if rec := e.do(req{method: http.MethodPost, path: "/api/auth/nonce", body: body, remote: "192.0.2.7:1234"}); rec.Code != 200 {
			t.Fatalf("public %d: %d", i, rec.Code)
		}
	}
	rec = e.do(req{method: http.MethodPost, path: "/api/auth/nonce", body: body, remote: "192.0.2.7:1234",
		header: map[string]string{"X-Forwarded-For": "198.51.100.1"}})
	assertLimited(t, rec, rec.Code, decode(t, rec), e.clk.Now())
	if rec := e.do(req{method: http.MethodPost, path: "/api/auth/nonce", body: body, remote: "192.0.2.8:1234"}); rec.Code != 200 {
		t.Fatalf("another IP shares the limit: %d", rec.Code)
	}
	e.clk.Advance(time.Minute)
	if rec := e.do(req{method: http.MethodGet, path: "/api/status/ping", header: h}); rec.Code != 200 {
		t.Fatalf("limit not replenished after a minute: %d", rec.Code)
	}
}

// TestRedisLimitIsSharedAcrossInstances runs two servers on one Redis: together they allow the
// limit once, not twice.
func TestRedisLimitIsSharedAcrossInstances(t *testing.T) {
	t.Parallel()
	url := os.Getenv("PAYLEDGER_TEST_REDIS_URL")
	if url == "" {
		url = "redis://127.0.0.1:6379/0"
	}
	opts, _ := redis.ParseURL(url)
	probe := redis.NewClient(opts)
	defer probe.Close()
	if err := probe.Ping(context.Background()).Err(); err != nil {
		t.Skipf("no Redis answers at %s (%v): the shared limit is not tested here", url, err)
	}
	limiter := func() Limiter {
		l, client, err := ratelimit.NewRedis(url, time.Now)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { client.Close() })
		return l
	}
	a := newEnv(t, func(d *testDeps) { d.Limiter = limiter(); d.Config.KeyLimitPerMinute = 4 })
	b := newEnv(t, func(d *testDeps) { d.Limiter = limiter(); d.Config.KeyLimitPerMinute = 4 })
	// The same key (same id) exists in both instances' databases, as with one shared database.
	secret, key, err := a.keys.Create(context.Background(), "0x"+strings.Repeat("9a", 20), "shared", []string{"receipts:read"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.pool.Exec(context.Background(), `INSERT INTO api_keys (id, wallet, name, scopes, key_hash, prefix) VALUES ($1,$2,'shared',$3,sha256($4::bytea),$5)`,
		key.ID, key.Wallet, key.Scopes, []byte(secret), key.Prefix); err != nil {
		t.Fatal(err)
	}
	h := map[string]string{"Ocp-Apim-Subscription-Key": secret}
	for i, srv := range []*env{a, b, a, b} {
		if rec := srv.do(req{method: http.MethodGet, path: "/api/status/ping", header: h}); rec.Code != 200 {
			t.Fatalf("request %d: %d %s", i, rec.Code, rec.Body)
		}
	}
	for _, srv := range []*env{a, b} {
		rec := srv.do(req{method: http.MethodGet, path: "/api/status/ping", header: h})
		assertLimited(t, rec, rec.Code, decode(t, rec), time.Now())
	}
}

// TestRevocationReachesEveryInstanceCache: a key cached by one instance stops working there as
// soon as another instance revokes it.
func TestRevocationReachesEveryInstanceCache(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	wallet := "0x" + strings.Repeat("7c", 20)
	secret, key, err := e.keys.Create(context.Background(), wallet, "x", []string{"receipts:read"})
	if err != nil {
		t.Fatal(err)
	}
	ping := func() int {
		return e.do(req{method: http.MethodGet, path: "/api/status/ping", header: map[string]string{"x-api-key": secret}}).Code
	}
	waitUntil(t, "the key cache to listen", 5*time.Second, func() bool { return ping() == 200 && ping() == 200 })
	other := readmodels.NewKeys(e.pool) // another instance, on the same database
	if err := other.Revoke(context.Background(), wallet, key.ID); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the revocation to reach this instance", 2*time.Second, func() bool { return ping() == 401 })
}
