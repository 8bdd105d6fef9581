package readmodels

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/payledger/payledger/migrations/pgtest"
)

// TestReceiptSearchCanReadATransactionIDIndex: with migration 042's index, both searches (with and
// without a status) read it, paired with the primary key for the receipt id, instead of walking
// the merchant's receipts newest first and reading each one's state.
func TestReceiptSearchCanReadATransactionIDIndex(t *testing.T) {
	t.Parallel()
	pool := pgtest.Pool(t)
	ctx := context.Background()
	// A merchant with many receipts, so that the planner weighs the walk the index spares.
	if _, err := pool.Exec(ctx, `INSERT INTO receipts (receipt_id, merchant_wallet, status, currency, total_cents,
			created_at, updated_at, version, pos_commit, pos_prepare, state)
		SELECT 'rcpt_' || i, '0xm', 'paid', 'USD', 400, now(), now(), 2, i, i,
			jsonb_build_object('status', 'paid', 'receipt', jsonb_build_object('receiptId', 'rcpt_' || i, 'transactionId', 'ord-' || i))
		FROM generate_series(1, 5000) AS i`); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `ANALYZE receipts`); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, query string
		args        []any
	}{
		{"any status", searchReceipts + searchReceiptsOrder, []any{"0xm", "ord-7", 50}},
		{"one status", searchReceipts + ` AND status = $4` + searchReceiptsOrder, []any{"0xm", "ord-7", 50, "paid"}},
	} {
		plan := explainSearch(t, pool, tc.query, tc.args...)
		if !strings.Contains(plan, "receipts_transaction_id") || !strings.Contains(plan, "receipts_pkey") {
			t.Errorf("%s: the search does not read the transactionId index and the primary key:\n%s", tc.name, plan)
		}
	}
	found, err := NewReceipts(pool).Search(ctx, "0xm", "ord-7", "paid", 50)
	if err != nil || len(found) != 1 || found[0].State.Receipt.ReceiptID != "rcpt_7" {
		t.Fatalf("search: %v %+v", err, found)
	}
}

// explainSearch is the plan PostgreSQL makes for query with args.
// (pool may be a transaction, for a plan under its SET LOCAL settings.)
func explainSearch(t *testing.T, pool interface {
	Query(context.Context, string, ...any) (pgx.Rows, error)
}, query string, args ...any) string {
	t.Helper()
	rows, err := pool.Query(context.Background(), "EXPLAIN "+query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
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
	return plan.String()
}
