package projections_test

import (
	"context"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payledger/payledger/projections"
)

// receiptsIndexes is the names of the live receipts table's indexes and constraints, sorted.
func receiptsIndexes(t *testing.T, pool *pgxpool.Pool) []string {
	t.Helper()
	rows, err := pool.Query(context.Background(), `SELECT indexname FROM pg_indexes WHERE tablename = 'receipts'
		UNION SELECT conname FROM pg_constraint WHERE conrelid = 'receipts'::regclass ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// A blue/green rebuild swaps in a table whose indexes and constraints carry the live table's
// names. They carried the shadow's (receipts_next_pkey, receipts_next_expr_idx, ...), and a
// second rebuild made them receipts_next_pkey1 and so on: a migration that names an index of
// receipts (022 drops receipts_wallet_pending) failed on a database rebuilt before it, and serve
// did not start.
func TestBlueGreenRebuildKeepsTheIndexNames(t *testing.T) {
	t.Parallel()
	pool, s := setup(t)
	ctx := context.Background()
	r, _ := start(t, pool, s, projections.NewReceipts(nil))
	p := &depositPayer{t: t, s: s, r: r}
	p.pay(p.receipt())
	before := receiptsIndexes(t, pool)
	if !slices.Contains(before, "receipts_pkey") || !slices.Contains(before, "receipts_window_due") {
		t.Fatalf("indexes before the rebuild: %v", before)
	}
	for i := range 2 {
		if err := projections.RebuildReceiptsBlueGreen(ctx, pool, s, nil); err != nil {
			t.Fatal(err)
		}
		if after := receiptsIndexes(t, pool); !slices.Equal(after, before) {
			t.Fatalf("after rebuild %d the live table's indexes are %v, want %v", i+1, after, before)
		}
	}
}
