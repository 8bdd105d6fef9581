package migrations_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payledger/payledger/migrations"
	"github.com/payledger/payledger/migrations/pgtest"
	"github.com/payledger/payledger/settlement/pgstore"
)

// Migration 051 (stop 70): a failed deposit receipt with credits that cannot be valued
// (amount_received NULL, its state holding credits: an EUR receipt without a rate) is put on the
// sweeper's work list, by the backfill for those failed before it and by the trigger from then
// on; before, migration 050's trigger left it off (amount_received NULL) and its funds stayed at
// the deposit unlisted. A failed receipt with nothing seen stays off, and one valued as before.
func TestMigration051ListsFailedReceiptsWithUnvaluedCredits(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dbURL, conn, _ := migratedTo(t, 50)
	insert := func(id, status, state string, received *string, n int) {
		t.Helper()
		if _, err := conn.Exec(ctx, `INSERT INTO receipts (receipt_id, merchant_wallet, status, currency, total_cents, created_at,
				updated_at, version, pos_commit, pos_prepare, state, deposit_address, amount_received)
			VALUES ($1, '0xm', $2, 'EUR', 1, now(), now() + $4 * interval '1 second', 4, $4, 0, $3::jsonb, '0x' || $1, $5)`,
			id, status, state, n, received); err != nil {
			t.Fatal(err)
		}
	}
	credits, nothing := `{"credits": [{"token": "USDC", "amountUnits": "5000000", "confirmed": true}]}`, `{}`
	part, none := "4.00", (*string)(nil)
	insert("unvalued-before-051", "failed", credits, none, 1)
	insert("empty-before-051", "failed", nothing, none, 2)
	if err := migrations.Apply(ctx, dbURL); err != nil {
		t.Fatal(err)
	}
	pool := pgtest.PoolFor(t, dbURL)
	insert("unvalued-after", "failed", credits, none, 3)
	insert("empty-after", "failed", nothing, none, 4)
	insert("valued-after", "failed", credits, &part, 5)
	insert("pending-unvalued-after", "pending", credits, none, 6)
	cands, err := pgstore.NewDepositSweeps(pool).Claim(ctx, uuid.New(), time.Minute, 100)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range cands {
		ids = append(ids, c.ReceiptID)
	}
	slices.Sort(ids)
	if want := []string{"unvalued-after", "unvalued-before-051", "valued-after"}; !slices.Equal(ids, want) {
		t.Fatalf("the sweeper claimed %v; want %v", ids, want)
	}
}
