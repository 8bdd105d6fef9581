// Package ratelimit holds the request limiters: an in-process GCRA (the default) and a Redis
// GCRA (redis_rate) that shares limits across instances. Both allow `n` requests per period
// (a minute for Allow) per key, with a burst of the same size, and count an IPv6 client's /56
// besides its /64 (networks.go).
package ratelimit

import (
	"context"
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
}

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

// AllowEvery counts one request for key against n requests per period, with a burst of n. The
// key of an IPv6 /64 is counted against its /56 too, at WiderMultiple times n (widerKey): the
// request is allowed only when both have room, and counted in both or in neither.
func (m *Memory) AllowEvery(_ context.Context, key string, n int, period time.Duration) (Result, error) {
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.tat) >= m.sweepAt {
		m.sweep(now)
	}
	res, next := m.gcra(key, n, period, now)
	if !res.Allowed {
		return res, nil
	}
	if wide, ok := widerKey(key); ok {
		wideRes, wideNext := m.gcra(wide, WiderMultiple*n, period, now)
		if !wideRes.Allowed {
			return wideRes, nil
		}
		m.tat[wide] = wideNext
		res = tighter(res, wideRes)
	}
	m.tat[key] = next
	return res, nil
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
	client  *redis.Client // for the /64 and /56 pair's script (allowPair)
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

// AllowEvery counts one request for key against n requests per period, with a burst of n; the
// key of an IPv6 /64 against its /56 too, at WiderMultiple times n (widerKey), in one atomic step
// (allowPair): counted in both or in neither, as Memory does.
func (r *Redis) AllowEvery(ctx context.Context, key string, n int, period time.Duration) (Result, error) {
	if wide, ok := widerKey(key); ok {
		return r.allowPair(ctx, key, wide, n, period)
	}
	return r.allow(ctx, key, n, period)
}

func (r *Redis) allow(ctx context.Context, key string, n int, period time.Duration) (Result, error) {
	res, err := r.limiter.Allow(ctx, "payledger:rl:"+key, redis_rate.Limit{Rate: n, Burst: n, Period: period})
	if err != nil {
		return Result{}, fmt.Errorf("redis rate limit: %w", err)
	}
	now := r.now()
	out := Result{Allowed: res.Allowed > 0, Limit: n, Remaining: res.Remaining, ResetAt: now.Add(res.ResetAfter)}
	if !out.Allowed {
		out.RetryAt = now.Add(res.RetryAfter)
	}
	return out, nil
}
