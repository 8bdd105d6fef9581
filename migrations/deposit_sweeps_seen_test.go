package migrations_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/tern/v2/migrate"

	"github.com/payledger/payledger/migrations"
	"github.com/payledger/payledger/migrations/pgtest"
	"github.com/payledger/payledger/settlement/pgstore"
)

// emptyDatabase creates a database with no migration applied, dropped when t ends.
func emptyDatabase(t *testing.T) string {
	t.Helper()
	base := pgtest.Server()
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "payledger_test_" + hex.EncodeToString(b[:])
	admin, err := pgx.Connect(context.Background(), base)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(context.Background())
	if _, err := admin.Exec(context.Background(), "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if c, err := pgx.Connect(context.Background(), base); err == nil {
			_, _ = c.Exec(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
			_ = c.Close(context.Background())
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

// Migration 030 on a database the sweeper has worked on: the receipts checked at their version
// stay checked, the one changed since its check, the one claimed by nobody yet and the one whose
// open sweep settles are candidates; Claim finds them through the new work list.
func TestMigration030KeepsTheSweepersWork(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dbURL, conn, _ := migratedTo(t, 29)
	_, err := conn.Exec(ctx, `INSERT INTO receipts (receipt_id, merchant_wallet, status, currency, total_cents, created_at, updated_at,
			version, pos_commit, pos_prepare, state, deposit_address)
		SELECT id, '0xm', 'paid', 'USD', 1, now(), now() + n * interval '1 second', 4, n, 0, '{}', '0x' || id
		FROM unnest(ARRAY['checked', 'changed', 'new', 'open']) WITH ORDINALITY AS u(id, n);
		INSERT INTO operator_transactions (sender, nonce, kind, tx_hash, raw_tx) VALUES ('0xop', 0, 'sweep', '0xh', '\x00');
		INSERT INTO deposit_sweeps (receipt_id, checked_version, tx_id) VALUES
			('checked', 4, NULL), ('changed', 3, NULL), ('open', 4, (SELECT id FROM operator_transactions))`)
	if err != nil {
		t.Fatal(err)
	}
	if err := migrations.Apply(ctx, dbURL); err != nil {
		t.Fatal(err)
	}
	pool := pgtest.PoolFor(t, dbURL)
	d := pgstore.NewDepositSweeps(pool)
	claim := func() []string {
		cands, err := d.Claim(ctx, uuid.New(), time.Minute, 100)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, c := range cands {
			ids = append(ids, c.ReceiptID)
		}
		return ids
	}
	if got := claim(); !slices.Equal(got, []string{"changed", "new"}) {
		t.Fatalf("claimed %v after the migration, want changed and new (by change time)", got)
	}
	var id int64
	if err := pool.QueryRow(ctx, `SELECT id FROM operator_transactions`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	if err := d.SettleSweep(ctx, id, "mined", 21000, nil); err != nil {
		t.Fatal(err)
	}
	if got := claim(); !slices.Equal(got, []string{"open"}) {
		t.Fatalf("claimed %v after the open sweep settled, want it checked again", got)
	}
}

// migratedTo is a new database migrated up to version (the migrations of this folder), for a
// test of the next migration on rows the older schema holds: its URL, a connection to it (closed
// with the test) and the migrator that takes it further.
func migratedTo(t *testing.T, version int32) (string, *pgx.Conn, *migrate.Migrator) {
	t.Helper()
	ctx := context.Background()
	dbURL := emptyDatabase(t)
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close(context.Background()) })
	m, err := migrate.NewMigrator(ctx, conn, "schema_version")
	if err != nil {
		t.Fatal(err)
	}
	if err := m.LoadMigrations(os.DirFS(".")); err != nil {
		t.Fatal(err)
	}
	if err := m.MigrateTo(ctx, version); err != nil {
		t.Fatal(err)
	}
	return dbURL, conn, m
}
