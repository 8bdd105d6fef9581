package readmodels

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/payledger/payledger/migrations/pgtest"
)

// TestHourlyBoundsLetTheBoundThroughWhateverTheRace: 40 requests at once, from two counts on one
// database (two instances), against a bound of 7 an hour: exactly 7 counted. The next is refused
// with the moment a place comes back (an hour over the bound later than the first) and no place
// left; once that moment has come, one more is counted.
func TestHourlyBoundsLetTheBoundThroughWhateverTheRace(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.Pool(t)
	start := time.UnixMicro(time.Now().UnixMicro())
	var clock atomic.Int64
	clock.Store(start.UnixMicro())
	now := func() time.Time { return time.UnixMicro(clock.Load()) }
	a, b := NewHourlyBounds(pool, now), NewHourlyBounds(pool, now)
	const bound = 7
	var counted atomic.Int32
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Go(func() {
			h := a
			if i%2 == 1 {
				h = b
			}
			got, ok, err := h.Take(ctx, time.Hour, []Bound{{Key: "keycreate:w1", Limit: bound}})
			if err != nil || len(got) != 1 || got[0].Allowed != ok {
				t.Errorf("take: %+v %v %v", got, ok, err)
				return
			}
			if ok {
				counted.Add(1)
			}
		})
	}
	wg.Wait()
	if counted.Load() != bound {
		t.Fatalf("%d requests counted against a bound of %d", counted.Load(), bound)
	}
	got, ok, err := a.Take(ctx, time.Hour, []Bound{{Key: "keycreate:w1", Limit: bound}})
	iv := time.Hour.Microseconds() / bound * int64(time.Microsecond) // the database counts in µs
	back := start.Add(time.Duration(iv))
	if err != nil || ok || got[0].Remaining != 0 || !got[0].RetryAt.Equal(back) || !got[0].ResetAt.Equal(start.Add(bound*time.Duration(iv))) {
		t.Fatalf("past the bound: %+v %v %v; want refused until %v", got, ok, err, back)
	}
	clock.Store(back.UnixMicro())
	if got, ok, err := b.Take(ctx, time.Hour, []Bound{{Key: "keycreate:w1", Limit: bound}}); err != nil || !ok || got[0].Remaining != 0 {
		t.Fatalf("a place back: %+v %v %v", got, ok, err)
	}
}

// TestHourlyBoundsCountEveryBucketOrNone: a request counted in several buckets (a /64 and its
// /56) is counted in all or in none: the /56 spent, a new /64 is refused by it and its own bucket
// keeps every place; the answers come in the order given, the remaining places of each. Buckets
// taken in opposite orders at once do not deadlock.
func TestHourlyBoundsCountEveryBucketOrNone(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := NewHourlyBounds(pgtest.Pool(t), nil)
	wide := Bound{Key: "subcreate:2001:db8::/56", Limit: 2}
	for i := range 2 {
		got, ok, err := h.Take(ctx, time.Hour, []Bound{{Key: fmt.Sprintf("subcreate:2001:db8:0:%x::/64", i), Limit: 5}, wide})
		if err != nil || !ok || got[0].Remaining != 4 || got[1].Remaining != 1-i || got[1].Key != wide.Key {
			t.Fatalf("request %d: %+v %v %v", i, got, ok, err)
		}
	}
	fresh := Bound{Key: "subcreate:2001:db8:0:9::/64", Limit: 5}
	got, ok, err := h.Take(ctx, time.Hour, []Bound{fresh, wide})
	if err != nil || ok || !got[0].Allowed || got[1].Allowed {
		t.Fatalf("the /56 spent: %+v %v %v; want refused by the /56", got, ok, err)
	}
	if got, ok, err := h.Take(ctx, time.Hour, []Bound{fresh}); err != nil || !ok || got[0].Remaining != 4 {
		t.Fatalf("the refused /64 alone: %+v %v %v; want its 5 places untouched", got, ok, err)
	}
	var wg sync.WaitGroup
	x, y := Bound{Key: "x", Limit: 1000}, Bound{Key: "y", Limit: 1000}
	for i := range 30 {
		wg.Go(func() {
			order := []Bound{x, y}
			if i%2 == 1 {
				order = []Bound{y, x}
			}
			if _, ok, err := h.Take(ctx, time.Hour, order); err != nil || !ok {
				t.Errorf("crossed buckets: %v %v", ok, err)
			}
		})
	}
	wg.Wait()
}

// TestHourlyBoundsDeleteWholeRows: a bucket whole for more than an hour is deleted by a later
// count of another bucket; a bucket still counting stays.
func TestHourlyBoundsDeleteWholeRows(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.Pool(t)
	h := NewHourlyBounds(pool, nil)
	old := time.Now().Add(-3 * time.Hour).UnixMicro()
	if _, err := pool.Exec(ctx, `INSERT INTO hourly_bounds VALUES ('plancreate:old', $1)`, old); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := h.Take(ctx, time.Hour, []Bound{{Key: "plancreate:live", Limit: 3}}); err != nil || !ok {
		t.Fatalf("take: %v %v", ok, err)
	}
	var keys []string
	rows, _ := pool.Query(ctx, `SELECT key FROM hourly_bounds ORDER BY key`)
	for rows.Next() {
		var k string
		_ = rows.Scan(&k)
		keys = append(keys, k)
	}
	if rows.Err() != nil || fmt.Sprint(keys) != "[plancreate:live]" {
		t.Fatalf("rows %v (%v), want the live bucket only", keys, rows.Err())
	}
}
