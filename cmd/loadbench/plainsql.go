package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The references measured as plain SQL, without the service, in the same run on the same machine:
// the raw-SQL ceiling, and an order's rows written alone.

// rawCeiling writes single-row INSERT transactions into a copy of the events table from
// `writers` goroutines, as the foundation benchmark's ceiling does.
func rawCeiling(ctx context.Context, dbURL string, servePid, writers int, d time.Duration) (result, error) {
	var version atomic.Int64
	data := bytes.Repeat([]byte("x"), 100)
	name := fmt.Sprintf("raw-SQL ceiling: 1-row INSERT transactions, %d writers", writers)
	return sqlWriters(ctx, dbURL, servePid, name, writers, d, []string{`CREATE TABLE raw_ceiling (LIKE events INCLUDING ALL)`},
		func(pool *pgxpool.Pool, w int) error {
			id := randomUUID()
			_, err := pool.Exec(ctx, `INSERT INTO raw_ceiling (event_id, stream_id, version, type, data, metadata, recorded_at, hash)
				VALUES ($1, $2, $3, 'Raw', $4, '{}', now(), $5)`, hex.EncodeToString(id[:]), fmt.Sprintf("raw-%d", w), version.Add(1),
				`{"d":"`+string(data)+`"}`, id[:])
			return err
		})
}

// orderRowsFloor writes what an order stores, taken from a real order of this run (its
// ReceiptGenerated event, its encrypted webhook key, its receipts row), into copies of the three
// tables with all their indexes, one transaction per order from `writers` goroutines: what plain
// SQL alone pays for an order's rows on this machine, before any HTTP, validation, pricing,
// projector or read-your-writes wait.
func orderRowsFloor(ctx context.Context, dbURL string, servePid, writers int, d time.Duration) (result, error) {
	var data, meta, state string
	var nonce, sealed []byte
	if err := withPool(ctx, dbURL, 1, func(pool *pgxpool.Pool) error {
		return pool.QueryRow(ctx, `SELECT e.data::text, e.metadata::text, r.state::text, k.nonce, k.ciphertext
			FROM events e JOIN receipts r ON e.stream_id = 'receipt-' || r.receipt_id JOIN receipt_webhook_keys k USING (receipt_id)
			WHERE e.type = 'ReceiptGenerated' LIMIT 1`).Scan(&data, &meta, &state, &nonce, &sealed)
	}); err != nil {
		return result{}, fmt.Errorf("a real order to copy: %w", err)
	}
	var setup []string
	for _, t := range []string{"events", "receipts", "receipt_webhook_keys"} {
		setup = append(setup, `CREATE TABLE floor_`+t+` (LIKE `+t+` INCLUDING ALL)`)
	}
	var seq atomic.Int64
	name := fmt.Sprintf("reference: an order's rows (event, webhook key, receipt row) as one SQL transaction each, %d writers, no HTTP, no projector", writers)
	return sqlWriters(ctx, dbURL, servePid, name, writers, d, setup, func(pool *pgxpool.Pool, _ int) error {
		i := seq.Add(1)
		id, eid := fmt.Sprintf("floor_%d", i), randomUUID()
		b := &pgx.Batch{}
		b.Queue(`INSERT INTO floor_receipt_webhook_keys (receipt_id, nonce, ciphertext) VALUES ($1, $2, $3)`, id, nonce, sealed)
		b.Queue(`INSERT INTO floor_events (event_id, stream_id, version, type, data, metadata, recorded_at, hash)
			VALUES ($1, $2, 1, 'ReceiptGenerated', $3, $4, now(), $5)`, hex.EncodeToString(eid[:]), "receipt-"+id, data, meta, eid[:])
		b.Queue(`INSERT INTO floor_receipts (receipt_id, merchant_wallet, status, currency, total_cents, state, created_at, updated_at, version, pos_commit, pos_prepare)
			VALUES ($1, $2, 'generated', 'USD', 4072, $3::jsonb, now(), now(), 1, $4, 0)`, id, "0xd52266c5e4280bcc10fb98e39dfd65a009f3068e", state, i)
		return pool.SendBatch(ctx, b).Close()
	})
}

// sqlWriters runs setup, then write from `writers` goroutines (each given its index) for d, and
// returns the successful writes per second with the CPU they used (measured, named name; the
// pool's backends are read before it closes, so their time counts).
func sqlWriters(ctx context.Context, dbURL string, servePid int, name string, writers int, d time.Duration, setup []string,
	write func(*pgxpool.Pool, int) error) (result, error) {
	var r result
	err := withPool(ctx, dbURL, writers, func(pool *pgxpool.Pool) error {
		for _, stmt := range setup {
			if _, err := pool.Exec(ctx, stmt); err != nil {
				return err
			}
		}
		// No profile: the service is idle here, and its CPU is in r.cpu.
		r = measured(servePid, "", name, writers, d, func(w int) error { return write(pool, w) })
		return nil
	})
	return r, err
}

func withPool(ctx context.Context, dbURL string, conns int, f func(*pgxpool.Pool) error) error {
	cfg, err := pgxpool.ParseConfig(dbURL)
	if err != nil {
		return err
	}
	cfg.MaxConns = int32(conns)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return err
	}
	defer pool.Close()
	return f(pool)
}

func randomUUID() [16]byte {
	var id [16]byte
	_, _ = rand.Read(id[:])
	id[6], id[8] = (id[6]&0x0f)|0x40, (id[8]&0x3f)|0x80
	return id
}
