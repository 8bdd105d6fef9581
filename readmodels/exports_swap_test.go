package readmodels_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payledger/payledger/migrations/pgtest"
	"github.com/payledger/payledger/readmodels"
)

// smallReceiveBuffer returns a pool on pool's database whose connections take at most a few KiB
// off the wire before the client reads them, as a client that reads an export slowly makes the
// server wait (the kernel's automatic buffers would otherwise take megabytes of rows first).
func smallReceiveBuffer(t *testing.T, pool *pgxpool.Pool) *pgxpool.Pool {
	t.Helper()
	cfg := pool.Config().Copy()
	d := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		var err error
		if cerr := c.Control(func(fd uintptr) { err = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) }); cerr != nil {
			return cerr
		}
		return err
	}}
	cfg.ConnConfig.DialFunc = d.DialContext
	small, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(small.Close)
	return small
}

// TestExportHoldsNoLockWhileItsClientReads: an export read its rows in one query, which holds
// the receipts table's lock until the server has sent its last row, that is, for as long as
// the client takes to read them (EXPORT_TIMEOUT, 5 minutes, for a slow one). A blue/green
// rebuild's swap waits for that lock, and every order, status read and projector write queues
// behind the swap: the whole API stood still behind one merchant's slow download. The export
// now reads pages of rows in short queries, in log order from where the last page ended, so
// between pages it holds nothing: the swap goes through, and the export goes on in the table
// swapped in, every row once and in order.
func TestExportHoldsNoLockWhileItsClientReads(t *testing.T) {
	t.Parallel()
	pool := pgtest.Pool(t)
	ctx := context.Background()
	merchant := "0x" + strings.Repeat("a", 40)
	const n = 20_000 // several MiB of rows: more than the server's socket buffer holds
	// No autovacuum or autoanalyze of these rows: its lock would refuse the swap's NOWAIT too.
	if _, err := pool.Exec(ctx, `ALTER TABLE receipts SET (autovacuum_enabled = false)`); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO receipts (receipt_id, merchant_wallet, status, currency, total_cents,
			created_at, updated_at, version, pos_commit, pos_prepare, state)
		SELECT 'r-' || lpad(i::text, 6, '0'), $1, 'paid', 'USD', 100 + i, now() - interval '1 hour', now(), 2,
			1000 + i / 2, 1000 + i / 2, -- two receipts share each position: the order breaks ties by id
			jsonb_build_object('receipt', jsonb_build_object('receiptId', 'r-' || i, 'subtotalCents', 100 + i,
				'transactionId', repeat('x', 200)), 'splitDistributedAt', 1800000000000 + i)
		FROM generate_series(1, $2) AS i`, merchant, n); err != nil {
		t.Fatal(err)
	}
	exports, err := readmodels.OpenExports(ctx, smallReceiveBuffer(t, pool), 2)
	if err != nil {
		t.Fatal(err)
	}
	swap := func() error { // what a blue/green rebuild's swap does, in short
		tx, err := pool.Begin(ctx)
		if err != nil {
			return err
		}
		defer func() { _ = tx.Rollback(ctx) }()
		for _, stmt := range []string{`LOCK TABLE receipts IN ACCESS EXCLUSIVE MODE NOWAIT`,
			`CREATE TABLE receipts_next (LIKE receipts INCLUDING ALL)`, `INSERT INTO receipts_next SELECT * FROM receipts`,
			`ALTER TABLE receipts RENAME TO receipts_old`, `ALTER TABLE receipts_next RENAME TO receipts`, `DROP TABLE receipts_old`} {
			if _, err := tx.Exec(ctx, stmt); err != nil {
				return err
			}
		}
		return tx.Commit(ctx)
	}
	var ids []string
	err = exports.Receipts(ctx, merchant, time.Now().Add(-2*time.Hour), time.Now(), "", func(rec []string) error {
		ids = append(ids, rec[0])
		if len(ids) == 1 {
			if err := swap(); err != nil {
				var pgErr *pgconn.PgError
				if errors.As(err, &pgErr) && pgErr.Code == "55P03" {
					t.Errorf("the swap could not take the receipts table while the export's client read its first row: %v", err)
				}
				return err
			}
		}
		return nil
	})
	if err != nil && !t.Failed() {
		t.Fatal(err)
	}
	if t.Failed() {
		return
	}
	inLogOrder(t, "receipts", ids, n)
	ids = nil
	if err := exports.SplitTransactions(ctx, merchant, time.UnixMilli(1800000000000), time.UnixMilli(1900000000000), func(rec []string) error {
		ids = append(ids, rec[0])
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	inLogOrder(t, "split transactions", ids, n)
}

// inLogOrder checks that an export gave n rows, each once, in the order of the ids (zero-padded,
// as the positions they were inserted at).
func inLogOrder(t *testing.T, export string, ids []string, n int) {
	t.Helper()
	if len(ids) != n {
		t.Fatalf("%s: %d rows, want %d", export, len(ids), n)
	}
	for i := 1; i < n; i++ {
		if ids[i] <= ids[i-1] {
			t.Fatalf("%s: row %d is %s after %s: not in log order once each", export, i, ids[i], ids[i-1])
		}
	}
}
