package migrations_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/settlement"
	"github.com/payledger/payledger/settlement/pgstore"
)

// Migration 041 on a database with refund claims: every row stays; a hash claimed (not proven)
// may be claimed on another receipt now, a hash counted (on chain, or on the word under the hash
// itself before stop 64) and a hold on the merchant's word stay one receipt's.
func TestMigration041KeepsTheRefundClaims(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dbURL, conn, m := migratedTo(t, 40)
	hash := func(d string) string { return "0x" + strings.Repeat(d, 64) }
	if _, err := conn.Exec(ctx, `INSERT INTO refund_claims (transaction_hash, receipt_id, state, block_number, block_hash, holders) VALUES
		($1, 'claimed', 'claimed', NULL, NULL, 2), ($2, 'chain', 'counted', 7, '0xb7', 1), ($3, 'word', 'counted', NULL, NULL, 1),
		($4, 'wordheld', 'claimed', NULL, NULL, 1)`, hash("a"), hash("b"), hash("c"), hash("d")+"/0xm"); err != nil {
		t.Fatal(err)
	}
	if err := m.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	pool, err := pgxpool.New(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	claims := pgstore.NewRefundClaims(pool)
	at := time.Now()
	for _, c := range []struct {
		key, receipt string
		fresh        bool
		err          error
	}{
		{hash("a"), "other", true, nil},
		{hash("a"), "claimed", false, nil},
		{hash("b"), "other", false, commands.ErrRefundHashTaken},
		{hash("c"), "other", false, commands.ErrRefundHashTaken},
		{hash("d") + "/0xm", "other", false, commands.ErrRefundHashTaken},
	} {
		if fresh, err := claims.Reserve(ctx, c.key, c.receipt, at); fresh != c.fresh || !errors.Is(err, c.err) {
			t.Fatalf("reserve %s for %s: %v, %v; want %v, %v", c.key, c.receipt, fresh, err, c.fresh, c.err)
		}
	}
	open, err := claims.Claimed(ctx, settlement.RefundClaim{}, 10)
	if err != nil || len(open) != 3 || open[0].Holders+open[1].Holders+open[2].Holders != 5 {
		t.Fatalf("claims after the upgrade: %+v, %v", open, err)
	}
	counted, err := claims.CountedSince(ctx, 0)
	if err != nil || len(counted) != 1 || counted[0].ReceiptID != "chain" {
		t.Fatalf("counted after the upgrade: %+v, %v", counted, err)
	}
}
