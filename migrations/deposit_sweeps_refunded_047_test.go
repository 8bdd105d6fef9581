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

// Migration 047: a deposit receipt refunded (or with a refund claimed) before its sweep was never
// put on the sweeper's work list (the trigger of 030 reacted to paid and reconciled only), so the
// customer's payment stayed at the deposit while the merchant paid the refund from its own wallet.
// The backfill lists such receipts left unswept by an older build, and the trigger lists a receipt
// that reaches refunded, or is credited again, from now on; a failed one stays off the list.
func TestMigration047SweepsRefundedReceipts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dbURL, conn, _ := migratedTo(t, 46)
	insert := func(id, status string, n int) {
		t.Helper()
		if _, err := conn.Exec(ctx, `INSERT INTO receipts (receipt_id, merchant_wallet, status, currency, total_cents, created_at,
				updated_at, version, pos_commit, pos_prepare, state, deposit_address)
			VALUES ($1, '0xm', $2, 'USD', 1, now(), now() + $3 * interval '1 second', 4, $3, 0, '{}', '0x' || $1)`, id, status, n); err != nil {
			t.Fatal(err)
		}
	}
	insert("refunded-before-047", "refunded", 1)
	insert("claimed-before-047", "refund_requested", 2)
	if err := migrations.Apply(ctx, dbURL); err != nil {
		t.Fatal(err)
	}
	pool := pgtest.PoolFor(t, dbURL)
	insert("refunded-after", "refunded", 3)
	insert("failed-after", "failed", 4)
	cands, err := pgstore.NewDepositSweeps(pool).Claim(ctx, uuid.New(), time.Minute, 100)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range cands {
		ids = append(ids, c.ReceiptID)
	}
	slices.Sort(ids)
	if want := []string{"claimed-before-047", "refunded-after", "refunded-before-047"}; !slices.Equal(ids, want) {
		t.Fatalf("the sweeper claimed %v; want %v", ids, want)
	}
}
