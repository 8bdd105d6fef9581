package readmodels

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// HourlyBounds counts the requests against the bounds over an hour (key, endpoint and plan
// creations, test events, redeliveries, subscription creations and split deployments per
// address: transport's limitEveryAll) in the database (migration 056, hourly_bounds), one count
// for every instance on it. Without Redis each instance counted them on its own, so n instances
// allowed n times every bound. The count is the GCRA of ratelimit.Memory and of the Redis script
// (a burst of the bound, then a place back every period over the bound), so a client is answered
// the same whichever counts.
type HourlyBounds struct {
	pool *pgxpool.Pool
	now  func() time.Time // nil: the database's clock
}

// NewHourlyBounds returns the bounds' counts over pool on clock now; nil counts on the database's
// clock, one clock for every instance (serve's). A test gives its own clock.
func NewHourlyBounds(pool *pgxpool.Pool, now func() time.Time) *HourlyBounds {
	return &HourlyBounds{pool: pool, now: now}
}

// Bound is one bucket counted: its key and the requests it allows a period.
type Bound struct {
	Key   string
	Limit int
}

// BoundCount is one bucket's answer to a request.
type BoundCount struct {
	Bound
	// Allowed: the bucket had room (the request is counted only if every bucket had).
	Allowed bool
	// Remaining is the places left once the request is counted (0 when the bucket had none).
	Remaining int
	// RetryAt is when a place comes back; ResetAt when the bucket is whole again.
	RetryAt, ResetAt time.Time
}

// takeBounds is one call of hourly_bounds_take (migration 056): one statement.
const takeBounds = `SELECT pos, allowed, counted, remaining, retry_us, reset_us FROM hourly_bounds_take($1, $2, $3, $4)`

// Take counts one request in every bound over period, in all or in none, never past a bound
// whatever the instances and the race. It answers each distinct bound's count, in the order
// given, and whether the request was counted.
func (h *HourlyBounds) Take(ctx context.Context, period time.Duration, bounds []Bound) ([]BoundCount, bool, error) {
	if bounds = distinctBounds(bounds); len(bounds) == 0 {
		return nil, false, fmt.Errorf("count a request in the hourly bounds: no bucket")
	}
	keys, limits := make([]string, len(bounds)), make([]int32, len(bounds))
	for i, b := range bounds {
		keys[i], limits[i] = b.Key, int32(max(b.Limit, 1))
	}
	var at *int64
	if h.now != nil {
		us := h.now().UnixMicro()
		at = &us
	}
	rows, err := h.pool.Query(ctx, takeBounds, keys, limits, period.Microseconds(), at)
	if err != nil {
		return nil, false, fmt.Errorf("count a request in the hourly bounds: %w", err)
	}
	defer rows.Close()
	out, counted := make([]BoundCount, 0, len(bounds)), false
	for rows.Next() {
		var pos, remaining, retry, reset int64
		var c BoundCount
		if err := rows.Scan(&pos, &c.Allowed, &counted, &remaining, &retry, &reset); err != nil {
			return nil, false, fmt.Errorf("read the hourly bounds' count: %w", err)
		}
		c.Bound, c.Remaining = bounds[pos-1], int(remaining)
		c.RetryAt, c.ResetAt = time.UnixMicro(retry), time.UnixMicro(reset)
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, false, fmt.Errorf("count a request in the hourly bounds: %w", err)
	}
	if len(out) != len(bounds) {
		return nil, false, fmt.Errorf("count a request in the hourly bounds: %d of %d buckets answered", len(out), len(bounds))
	}
	return out, counted, nil
}

// distinctBounds drops a repeated key (the function locks and counts each row once), keeping its
// first bound.
func distinctBounds(bounds []Bound) []Bound {
	seen := make(map[string]bool, len(bounds))
	out := bounds[:0:0]
	for _, b := range bounds {
		if !seen[b.Key] {
			seen[b.Key] = true
			out = append(out, b)
		}
	}
	return out
}
