package readmodels

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/payledger/payledger/migrations/pgtest"
)

// TestSplitBudgetLetsTheLimitThroughAnHourWhateverTheRace: the budget is one count in the
// database for every instance. Twenty spends at once against a budget of 3 let exactly 3
// through; the count reads 3 and the hour it is for; once the hour is over (the row moved back an
// hour, as the database's clock would) the next hour starts at 1; hours more than a day old are
// deleted by the next spend.
func TestSplitBudgetLetsTheLimitThroughAnHourWhateverTheRace(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.Pool(t)
	b := NewSplitBudget(pool)
	if c, err := b.Count(ctx); err != nil || c.Count != 0 || c.Hour.IsZero() || c.Hour.Minute() != 0 || c.Hour.Second() != 0 {
		t.Fatalf("an hour without deployments: %+v %v", c, err)
	}
	const budget = 3
	var mu sync.Mutex
	var allowed int
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			c, ok, err := b.Spend(ctx, budget)
			if err != nil || c.Count > budget || (!ok && c.Count != budget) {
				t.Errorf("spend: %+v %v %v", c, ok, err)
			}
			if ok {
				mu.Lock()
				allowed++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if allowed != budget {
		t.Fatalf("%d spends let through of a budget of %d", allowed, budget)
	}
	c, err := b.Count(ctx)
	if err != nil || c.Count != budget || time.Until(c.End()) > time.Hour || time.Until(c.End()) <= 0 {
		t.Fatalf("the hour's count: %+v %v; want %d ending within the hour", c, err, budget)
	}
	// The hour over: its row is an hour back, and two days back an hour nobody deleted.
	if _, err := pool.Exec(ctx, `UPDATE split_deploy_budget SET hour = hour - interval '1 hour';
		INSERT INTO split_deploy_budget VALUES (now() - interval '2 days', 7)`); err != nil {
		t.Fatal(err)
	}
	if c, ok, err := b.Spend(ctx, budget); err != nil || !ok || c.Count != 1 {
		t.Fatalf("the next hour's first spend: %+v %v %v", c, ok, err)
	}
	var rows int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM split_deploy_budget`).Scan(&rows); err != nil || rows != 2 {
		t.Fatalf("%d rows (%v); want the last hour's and this one's, the two days old one deleted", rows, err)
	}
}
