package readmodels

import (
	"context"
	"strings"
	"testing"

	"github.com/payledger/payledger/migrations/pgtest"
)

// TestKeptPlansAreCountedOnTheirIndex: the count of a wallet's plans, active and inactive, that
// every creation makes (underKeptBound) reads subscription_plans_wallet_all (migration 053); the
// only other wallet index is partial on active, so without it the count read the whole table.
// Sequential scans are off so that the plan on an empty table is the one a large table gets.
func TestKeptPlansAreCountedOnTheirIndex(t *testing.T) {
	t.Parallel()
	pool := pgtest.Pool(t)
	ctx := context.Background()
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err := tx.Exec(ctx, `SET LOCAL enable_seqscan = off`); err != nil {
		t.Fatal(err)
	}
	rows, err := tx.Query(ctx, `EXPLAIN SELECT 1 WHERE `+underKeptBound("$1"), MaxKeptPlans, "0x"+strings.Repeat("a", 40))
	if err != nil {
		t.Fatal(err)
	}
	var plan strings.Builder
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		plan.WriteString(line + "\n")
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(plan.String(), "subscription_plans_wallet_all") {
		t.Fatalf("the kept plans' count does not read subscription_plans_wallet_all:\n%s", plan.String())
	}
}
