package transport

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/payledger/payledger/readmodels"
	"github.com/payledger/payledger/transport/ratelimit"
)

// sharedHoursInstance is another instance of e's service on e's database whose limiter counts
// the hourly bounds as serve's does (SharedHours over the database's count, on e's clock), over
// limiter (nil: an in-process one, no Redis).
func (e *env) sharedHoursInstance(limiter Limiter) *env {
	e.t.Helper()
	return e.secondInstance(func(d *testDeps) {
		if limiter == nil {
			limiter = ratelimit.NewMemory(e.clk.Now)
		}
		d.Limiter = SharedHours(limiter, readmodels.NewHourlyBounds(e.pool, e.clk.Now))
	})
}

// TestKeyCreationsAreBoundedOnceForEveryInstance (stop 74): two instances on one database
// without Redis allow KeyCreatesPerHour key creations an hour per wallet between them, not each:
// the creations alternate between the two, and the next one is 429 rate_limited on either, with
// Retry-After and no key stored. Each counted on its own before (ratelimit.Memory): twice the bound.
func TestKeyCreationsAreBoundedOnceForEveryInstance(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(false)
	a, b := e.sharedHoursInstance(nil), e.sharedHoursInstance(nil)
	checkSharedKeyCreations(t, e, m, a, b)
}

// TestKeyCreationsAreBoundedOnceWhileRedisFails: with REDIS_URL set and Redis not answering, the
// hourly bounds are counted in the database, for every instance (not in each instance's spare).
func TestKeyCreationsAreBoundedOnceWhileRedisFails(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(false)
	down := func() Limiter {
		r, client, err := ratelimit.NewRedis("redis://127.0.0.1:1/0", e.clk.Now) // nothing listens
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = client.Close() })
		return r
	}
	a, b := e.sharedHoursInstance(down()), e.sharedHoursInstance(down())
	checkSharedKeyCreations(t, e, m, a, b)
}

// checkSharedKeyCreations creates (and revokes) KeyCreatesPerHour keys of m alternately on a and
// b, then checks that one more is refused on both and stores nothing.
func checkSharedKeyCreations(t *testing.T, e *env, m merchant, a, b *env) {
	t.Helper()
	rows := func() int {
		var n int
		if err := e.pool.QueryRow(context.Background(), `SELECT count(*) FROM api_keys WHERE wallet = $1`, m.wallet).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := rows()
	for i := range KeyCreatesPerHour {
		on := []*env{a, b}[i%2]
		rec := on.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/admin/keys", `{"name":"loop","scopes":["receipts:read"]}`)
		if rec.Code != http.StatusCreated {
			t.Fatalf("creation %d: %d %s", i+1, rec.Code, rec.Body)
		}
		id := decode(t, rec)["apiKey"].(map[string]any)["id"].(string)
		if r := on.adminCall(m.cookies, m.csrf, http.MethodDelete, "/api/admin/keys/"+id, ""); r.Code != http.StatusOK {
			t.Fatalf("revoke: %d %s", r.Code, r.Body)
		}
	}
	for _, on := range []*env{a, b} {
		rec := on.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/admin/keys", `{"name":"loop","scopes":["receipts:read"]}`)
		if rec.Code != http.StatusTooManyRequests || decode(t, rec)["error"] != "rate_limited" || rec.Header().Get("Retry-After") == "" ||
			rec.Header().Get("X-RateLimit-Remaining") != "0" {
			t.Fatalf("creation %d of the hour: %d %v %s, want 429 rate_limited", KeyCreatesPerHour+1, rec.Code, rec.Header(), rec.Body)
		}
	}
	if n := rows(); n != before+KeyCreatesPerHour {
		t.Fatalf("%d keys, want %d: a refused creation stored one", n, before+KeyCreatesPerHour)
	}
}

// countedHours is an HourlyStore that counts its calls and answers as the database would not.
type countedHours struct{ calls atomic.Int32 }

func (c *countedHours) Take(context.Context, time.Duration, []readmodels.Bound) ([]readmodels.BoundCount, bool, error) {
	c.calls.Add(1)
	return nil, false, errNoHourLimiter
}

// TestSharedHoursKeepRedisAndTheMinutes: with Redis answering, the hourly bounds are counted in
// Redis (the database is not asked), and the per-minute limits never reach the database.
func TestSharedHoursKeepRedisAndTheMinutes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := &countedHours{}
	minutes := SharedHours(ratelimit.NewMemory(time.Now), store).(bucketLimiter)
	if res, err := minutes.AllowAll(ctx, time.Minute, ratelimit.Bucket{Key: "ip:hourly74", Limit: 5}); err != nil || !res.Allowed {
		t.Fatalf("a minute's limit: %+v %v", res, err)
	}
	if store.calls.Load() != 0 {
		t.Fatal("a per-minute limit asked the database")
	}
	r, client, err := ratelimit.NewRedis("redis://127.0.0.1:6379/0", time.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	if err := client.Ping(ctx).Err(); err != nil {
		t.Skipf("no Redis answers (%v)", err)
	}
	key := "keycreate:hourly74:" + time.Now().Format(time.RFC3339Nano)
	res, err := SharedHours(r, store).(bucketLimiter).AllowAll(ctx, time.Hour, ratelimit.Bucket{Key: key, Limit: 3})
	if err != nil || !res.Allowed || res.Remaining != 2 || store.calls.Load() != 0 {
		t.Fatalf("an hourly bound with Redis answering: %+v %v, %d database calls", res, err, store.calls.Load())
	}
}
