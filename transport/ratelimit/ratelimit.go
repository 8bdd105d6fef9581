// Package ratelimit holds the request limiters: an in-process GCRA (the default) and a Redis
// GCRA (redis_rate) that shares limits across instances. Both allow `n` requests per period
// (a minute for Allow) per key, with a burst of the same size; AllowAll counts a request in
// several buckets at once (a client address's /64, /56 and /48: networks.go), in all or in none.
package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"
)

// Result is the outcome of one request against a limit.
type Result struct {
	Allowed   bool
	Limit     int
	Remaining int
	// RetryAt is when a denied request may be retried (zero when allowed).
	RetryAt time.Time
	// ResetAt is when the limit is whole again.
	ResetAt time.Time
	// Key is the bucket that decided (AllowAll): the one that refused, else the one with the
	// fewest requests left.
	Key string
}

// errNoBuckets: AllowAll was given nothing to count.
var errNoBuckets = errors.New("rate limit: no bucket to count")

// Memory is an in-process GCRA limiter.
type Memory struct {
	now func() time.Time
	mu  sync.Mutex
	tat map[string]time.Time // theoretical arrival time per key
	// sweepAt is the size of tat at which the next sweep runs: twice what the last sweep left
	// (at least minSweep), so that a map of live keys is not walked again on every request.
	sweepAt int
	// sweeps counts the sweeps of tat (each walks every entry), for the tests.
	sweeps int
}

// minSweep is the size of tat below which expired keys are left in place.
const minSweep = 100_000

// NewMemory returns an in-process limiter on clock now.
func NewMemory(now func() time.Time) *Memory {
	return &Memory{now: now, tat: map[string]time.Time{}, sweepAt: minSweep}
}

// Allow counts one request for key against perMinute requests a minute (AllowEvery).
func (m *Memory) Allow(ctx context.Context, key string, perMinute int) (Result, error) {
	return m.AllowEvery(ctx, key, perMinute, time.Minute)
}

// AllowEvery counts one request for key against n requests per period, with a burst of n: the
// key alone (a client address's networks are counted by AllowAll with its Buckets).
func (m *Memory) AllowEvery(ctx context.Context, key string, n int, period time.Duration) (Result, error) {
	return m.AllowAll(ctx, period, Bucket{Key: key, Limit: n})
}

// AllowAll counts one request in every bucket, each allowing its Limit per period with a burst
// of as many: the request is allowed only when every bucket has room, and counted in all or in
// none. The result is the bucket that refused, else the one with the fewest requests left.
func (m *Memory) AllowAll(_ context.Context, period time.Duration, buckets ...Bucket) (Result, error) {
	if len(buckets) == 0 {
		return Result{}, errNoBuckets
	}
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.tat) >= m.sweepAt {
		m.sweep(now)
	}
	next := make([]time.Time, len(buckets))
	var out Result
	for i, b := range buckets {
		res, t := m.gcra(b.Key, b.Limit, period, now)
		res.Key = b.Key
		if !res.Allowed {
			return res, nil
		}
		if next[i] = t; i == 0 {
			out = res
		}
		out = tighter(out, res)
	}
	for i, b := range buckets {
		m.tat[b.Key] = next[i]
	}
	return out, nil
}

// gcra is the outcome of one request for key at now against n per period, and the key's
// theoretical arrival time if the request is counted; it changes nothing (m.mu held).
func (m *Memory) gcra(key string, n int, period time.Duration, now time.Time) (Result, time.Time) {
	// At least a nanosecond: more than one request a nanosecond (a typo of a limit) divided by
	// zero below and failed every request.
	interval := max(period/time.Duration(n), 1)
	burst := time.Duration(n) * interval
	tat := m.tat[key]
	if tat.Before(now) {
		tat = now
	}
	next := tat.Add(interval)
	allowAt := next.Add(-burst)
	if now.Before(allowAt) {
		return Result{Limit: n, RetryAt: allowAt, ResetAt: tat}, time.Time{}
	}
	remaining := int(now.Sub(allowAt) / interval)
	return Result{Allowed: true, Limit: n, Remaining: remaining, ResetAt: next}, next
}

// sweep drops the keys whose limit is whole again (their period is over). Keys still counting
// stay, however many: dropping one would give its client a new burst. The next sweep waits until
// the map has doubled, so a sweep's walk is paid for by as many requests as it walked entries.
func (m *Memory) sweep(now time.Time) {
	m.sweeps++
	for k, t := range m.tat {
		if t.Before(now) {
			delete(m.tat, k)
		}
	}
	m.sweepAt = max(minSweep, 2*len(m.tat))
}

// Redis is a GCRA limiter in Redis, shared by every instance that uses the same server.
type Redis struct {
	limiter *redis_rate.Limiter
	client  *redis.Client // for the buckets counted together (allowBuckets)
	now     func() time.Time
}

// NewRedis connects to the Redis at url (redis://host:port/db).
func NewRedis(url string, now func() time.Time) (*Redis, *redis.Client, error) {
	opts, err := redis.ParseURL(url)
	if err != nil {
		return nil, nil, fmt.Errorf("parse REDIS_URL: %w", err)
	}
	client := redis.NewClient(opts)
	return &Redis{limiter: redis_rate.NewLimiter(client), client: client, now: now}, client, nil
}

// Allow counts one request for key against perMinute requests a minute (AllowEvery).
func (r *Redis) Allow(ctx context.Context, key string, perMinute int) (Result, error) {
	return r.AllowEvery(ctx, key, perMinute, time.Minute)
}

// AllowEvery counts one request for key alone against n requests per period, with a burst of n.
func (r *Redis) AllowEvery(ctx context.Context, key string, n int, period time.Duration) (Result, error) {
	return r.AllowAll(ctx, period, Bucket{Key: key, Limit: n})
}

// AllowAll counts one request in every bucket in one atomic step (allowBuckets: counted in all
// or in none), as Memory does; one bucket alone goes through redis_rate.
func (r *Redis) AllowAll(ctx context.Context, period time.Duration, buckets ...Bucket) (Result, error) {
	switch len(buckets) {
	case 0:
		return Result{}, errNoBuckets
	case 1:
		return r.allow(ctx, buckets[0].Key, buckets[0].Limit, period)
	}
	return r.allowBuckets(ctx, period, buckets)
}

func (r *Redis) allow(ctx context.Context, key string, n int, period time.Duration) (Result, error) {
	res, err := r.limiter.Allow(ctx, "payledger:rl:"+key, redis_rate.Limit{Rate: n, Burst: n, Period: period})
	if err != nil {
		return Result{}, fmt.Errorf("redis rate limit: %w", err)
	}
	now := r.now()
	out := Result{Allowed: res.Allowed > 0, Limit: n, Remaining: res.Remaining, ResetAt: now.Add(res.ResetAfter), Key: key}
	if !out.Allowed {
		out.RetryAt = now.Add(res.RetryAfter)
	}
	return out, nil
}
