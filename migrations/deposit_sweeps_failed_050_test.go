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

// Migration 050 (stop 69): a failed deposit receipt with funds at its deposit (amount_received
// set: something was seen there) is put on the sweeper's work list, by the backfill for those
// failed before it and by the trigger from then on; one that failed with nothing seen
// (amount_received NULL: most expired receipts) stays off it.
func TestMigration050SweepsFailedReceiptsWithFunds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dbURL, conn, _ := migratedTo(t, 49)
	insert := func(id, status string, received *string, n int) {
		t.Helper()
		if _, err := conn.Exec(ctx, `INSERT INTO receipts (receipt_id, merchant_wallet, status, currency, total_cents, created_at,
				updated_at, version, pos_commit, pos_prepare, state, deposit_address, amount_received)
			VALUES ($1, '0xm', $2, 'USD', 1, now(), now() + $3 * interval '1 second', 4, $3, 0, '{}', '0x' || $1, $4)`, id, status, n, received); err != nil {
			t.Fatal(err)
		}
	}
	part, none := "4.00", (*string)(nil)
	insert("failed-with-funds-before-050", "failed", &part, 1)
	insert("failed-empty-before-050", "failed", none, 2)
	if err := migrations.Apply(ctx, dbURL); err != nil {
		t.Fatal(err)
	}
	pool := pgtest.PoolFor(t, dbURL)
	insert("failed-with-funds-after", "failed", &part, 3)
	insert("failed-empty-after", "failed", none, 4)
	insert("paid-after", "paid", &part, 5)
	cands, err := pgstore.NewDepositSweeps(pool).Claim(ctx, uuid.New(), time.Minute, 100)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range cands {
		ids = append(ids, c.ReceiptID)
	}
	slices.Sort(ids)
	if want := []string{"failed-with-funds-after", "failed-with-funds-before-050", "paid-after"}; !slices.Equal(ids, want) {
		t.Fatalf("the sweeper claimed %v; want %v", ids, want)
	}
}
