package pgstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/settlement"
)

// Deposits is what the deposit detector keeps in the database (settlement.DepositStore): the
// open deposit addresses, read from the receipts read model, and its cursor (chain_cursors).
type Deposits struct{ pool *pgxpool.Pool }

// NewDeposits returns the detector's store over pool.
func NewDeposits(pool *pgxpool.Pool) *Deposits { return &Deposits{pool: pool} }

var _ settlement.DepositStore = (*Deposits)(nil)

// Open is OpenKnown with no receipt known: every deposit with its state's facts.
func (d *Deposits) Open(ctx context.Context, now time.Time, monitor, late time.Duration) ([]settlement.OpenDeposit, error) {
	return d.OpenKnown(ctx, now, monitor, late, nil)
}

// openWhere is the receipts whose deposit address is watched ($1: monitor before now, $2: the
// late watch before that); openFlags their columns that need no state facts.
const (
	openWhere = `deposit_address IS NOT NULL AND NOT (state ? 'depositChainGone') AND (status IN ('generated', 'pending')
			OR (status = 'failed' AND (COALESCE(expires_at, updated_at) > $1 OR expires_at > $2))
			OR (status IN ('paid', 'reconciled') AND updated_at > $1))`
	openFlags = `receipt_id, deposit_address, version, status IN ('paid', 'reconciled'),
			status NOT IN ('paid', 'reconciled') AND NOT (status = 'failed' AND COALESCE(expires_at, updated_at) <= $1)
				AND COALESCE(state->'quotes' ? 'ETH', false), created_at, listed_at`
	// openFactsSQL reads the open deposits with their state's facts: the unconfirmed credits, the
	// payment, the withdrawn transaction.
	openFactsSQL = `SELECT ` + openFlags + `,
			CASE WHEN state ? 'credits' THEN state->'credits' END,
			CASE WHEN status IN ('paid', 'reconciled') THEN state->'payment' END, COALESCE(state->>'chainWithdrawnTx', '')
		FROM receipts WHERE ` + openWhere
	// openLeanSQL reads them without the facts, and says which have any.
	openLeanSQL = `SELECT ` + openFlags + `,
			state ? 'credits' OR status IN ('paid', 'reconciled') OR state ? 'chainWithdrawnTx'
		FROM receipts WHERE ` + openWhere
)

// OpenKnown implements settlement.DepositStore. The transfers not confirmed yet come from the
// receipt's state (its credits), so a restarted detector judges them at their depth too. A
// receipt in the late watch (past monitor) is not ETHQuoted: its balance is not read, so the
// balance slices of the receipts that can still be paid keep their pace (issue 38); ETH sent to
// it by a transaction is still seen.
//
// A receipt at the version known names comes Known, without its facts: at a block confirming
// 5,000 payments the detector holds every one of those states. So, with receipts known, the
// deposits are read without their facts first (openLeanSQL), and the facts only of those not
// known that have any (openFactsSQL for their ids), each such receipt as that second read finds
// it. Extracting, sending and scanning 5,000 credits and payments took 60 ms where the read
// without them takes 14 ms (5,000 paid receipts, median of 12). Telling PostgreSQL which receipts
// are known cost it more than extracting the facts (a jsonb of versions looked up per row, or a
// join with an unnest of them: 23-159 and 27-62 ms of executor time, against 16-22 ms).
func (d *Deposits) OpenKnown(ctx context.Context, now time.Time, monitor, late time.Duration, known map[string]uint64) ([]settlement.OpenDeposit, error) {
	since := now.Add(-monitor)
	if len(known) == 0 {
		return d.openWithFacts(ctx, openFactsSQL, nil, since, since.Add(-late))
	}
	rows, err := d.pool.Query(ctx, openLeanSQL, since, since.Add(-late))
	if err != nil {
		return nil, fmt.Errorf("open deposits: %w", err)
	}
	var lean []settlement.OpenDeposit
	var ask []string
	var o settlement.OpenDeposit
	var version int64
	var facts bool
	_, err = pgx.ForEachRow(rows, []any{&o.ReceiptID, &o.Address, &version, &o.Settled, &o.ETHQuoted, &o.CreatedAt, &o.Listed, &facts}, func() error {
		o.Version = uint64(version)
		o.Known = heldAt(known, o)
		if !o.Known && facts {
			ask = append(ask, o.ReceiptID)
		}
		lean = append(lean, o)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("open deposits: %w", err)
	}
	if len(ask) == 0 {
		return lean, nil
	}
	full, err := d.openWithFacts(ctx, openFactsSQL+` AND receipt_id = ANY($3)`, known, since, since.Add(-late), ask)
	if err != nil {
		return nil, err
	}
	return withFacts(lean, ask, full), nil
}

// heldAt says whether known names o's receipt at the version the read found.
func heldAt(known map[string]uint64, o settlement.OpenDeposit) bool {
	v, ok := known[o.ReceiptID]
	return ok && v == o.Version
}

// withFacts is lean with the receipts named in asked replaced by their rows in full, read after
// lean: a receipt asked for that full does not hold is no longer open and is left out.
func withFacts(lean []settlement.OpenDeposit, asked []string, full []settlement.OpenDeposit) []settlement.OpenDeposit {
	byID := make(map[string]settlement.OpenDeposit, len(full))
	for _, o := range full {
		byID[o.ReceiptID] = o
	}
	replaced := make(map[string]bool, len(asked))
	for _, id := range asked {
		replaced[id] = true
	}
	out := lean[:0]
	for _, o := range lean {
		if replaced[o.ReceiptID] {
			f, ok := byID[o.ReceiptID]
			if !ok {
				continue
			}
			o = f
		}
		out = append(out, o)
	}
	return out
}

// openWithFacts runs query (openFactsSQL's columns) and fills each deposit's facts from its
// state, or marks it Known when it is at the version known names.
func (d *Deposits) openWithFacts(ctx context.Context, query string, known map[string]uint64, args ...any) ([]settlement.OpenDeposit, error) {
	rows, err := d.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("open deposits: %w", err)
	}
	defer rows.Close()
	var out []settlement.OpenDeposit
	for rows.Next() {
		var o settlement.OpenDeposit
		var version int64
		var credits, payment []byte
		if err := rows.Scan(&o.ReceiptID, &o.Address, &version, &o.Settled, &o.ETHQuoted, &o.CreatedAt, &o.Listed, &credits, &payment, &o.Withdrawn); err != nil {
			return nil, err
		}
		o.Version = uint64(version)
		if heldAt(known, o) {
			o.Known, o.Withdrawn = true, ""
		} else if err := openFacts(&o, credits, payment); err != nil {
			return nil, fmt.Errorf("open deposits: receipt %s: %w", o.ReceiptID, err)
		}
		out = append(out, o)
	}
	return out, rows.Err()
}

// openFacts fills o from its receipt's state (JSON): the credits not confirmed yet, the payment
// on chain (for the audit).
func openFacts(o *settlement.OpenDeposit, credits, payment []byte) error {
	var cs []receipt.Credit
	if len(credits) > 0 {
		if err := json.Unmarshal(credits, &cs); err != nil {
			return err
		}
	}
	o.Unconfirmed = settlement.UnconfirmedOf(o.Address, cs)
	if len(payment) > 0 {
		var p receipt.Payment
		if err := json.Unmarshal(payment, &p); err != nil {
			return err
		}
		o.Paid = settlement.PaidOf(&p)
	}
	return nil
}

// Cursor implements settlement.DepositStore.
func (d *Deposits) Cursor(ctx context.Context, name string) (settlement.DepositCursor, bool, error) {
	var n int64
	var c settlement.DepositCursor
	var watched *time.Time
	err := d.pool.QueryRow(ctx, `SELECT block_number, block_hash, genesis_hash, watched_at FROM chain_cursors WHERE name = $1`, name).
		Scan(&n, &c.Hash, &c.Genesis, &watched)
	if errors.Is(err, pgx.ErrNoRows) {
		return c, false, nil
	}
	if err != nil {
		return c, false, fmt.Errorf("chain cursor %s: %w", name, err)
	}
	c.Number = uint64(n)
	if watched != nil {
		c.WatchedAt = *watched
	}
	return c, true, nil
}

// SaveCursor implements settlement.DepositStore. WatchedAt is the database's time less
// WatchedFor, so that it compares with the rows' listed_at on one clock.
func (d *Deposits) SaveCursor(ctx context.Context, name string, c settlement.DepositCursor) error {
	_, err := d.pool.Exec(ctx, `INSERT INTO chain_cursors AS c (name, block_number, block_hash, genesis_hash, watched_at)
		VALUES ($1, $2, $3, $4, CASE WHEN $5::bigint > 0 THEN now() - $5::bigint * interval '1 microsecond' END)
		ON CONFLICT (name) DO UPDATE SET block_number = EXCLUDED.block_number, block_hash = EXCLUDED.block_hash,
			genesis_hash = EXCLUDED.genesis_hash, watched_at = CASE WHEN $5::bigint < 0 THEN c.watched_at ELSE EXCLUDED.watched_at END`,
		name, int64(c.Number), c.Hash, c.Genesis, watchedFor(c.WatchedFor))
	if err != nil {
		return fmt.Errorf("chain cursor %s: %w", name, err)
	}
	return nil
}

// watchedFor is SaveCursor's WatchedFor in whole microseconds, its sign kept.
func watchedFor(d time.Duration) int64 {
	switch {
	case d < 0:
		return -1
	case d > 0:
		return max(d.Microseconds(), 1)
	}
	return 0
}

var _ settlement.ChainAfresh = (*Deposits)(nil)

// StartAfresh implements settlement.ChainAfresh, in one transaction.
func (d *Deposits) StartAfresh(ctx context.Context, chainID int64, name, genesis string) ([]string, error) {
	var gone []string
	err := pgx.BeginFunc(ctx, d.pool, func(tx pgx.Tx) error {
		// Every follower's cursor was on the old chain; the detector's starts at the new genesis.
		if _, err := tx.Exec(ctx, `DELETE FROM chain_cursors`); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO chain_cursors (name, block_number, block_hash, genesis_hash) VALUES ($1, 0, $2, $2)`, name, genesis); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM chain_contracts WHERE chain_id = $1`, chainID); err != nil {
			return err
		}
		// Signed on the old chain, never mined on this one: never to be broadcast here.
		if _, err := tx.Exec(ctx, `UPDATE operator_transactions SET status = 'reverted', settled_at = now() WHERE status = 'signed'`); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE deposit_sweeps SET tx_id = NULL, claim_token = NULL, claimed_at = NULL,
			checked_version = GREATEST(checked_version, seen_version)`); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT receipt_id FROM receipts
			WHERE deposit_address IS NOT NULL AND status NOT IN ('reconciled', 'refunded') ORDER BY receipt_id`)
		if err != nil {
			return err
		}
		gone, err = pgx.CollectRows(rows, pgx.RowTo[string])
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("chain %d afresh: %w", chainID, err)
	}
	return gone, nil
}

// ChainContract returns the address of the contract name the service deployed on chainID, or,
// when none is recorded, deploys it with deploy and records it. Two instances calling it at once
// end with one contract: the first holds a transaction-scoped advisory lock through the
// deployment, the second then finds the address. Errors: deploy's, wrapped database errors.
func ChainContract(ctx context.Context, pool *pgxpool.Pool, chainID int64, name string, deploy func(context.Context) (string, error)) (string, error) {
	tx, err := pool.Begin(ctx)
	if err != nil {
		return "", err
	}
	defer func() { _ = tx.Rollback(context.Background()) }()
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('chain_contracts:' || $1::text), $2::int)`, name, int32(chainID)); err != nil {
		return "", fmt.Errorf("chain contract %s: lock: %w", name, err)
	}
	var addr string
	err = tx.QueryRow(ctx, `SELECT address FROM chain_contracts WHERE chain_id = $1 AND name = $2`, chainID, name).Scan(&addr)
	if err == nil {
		return addr, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return "", fmt.Errorf("chain contract %s: %w", name, err)
	}
	if addr, err = deploy(ctx); err != nil {
		return "", err
	}
	if _, err := tx.Exec(ctx, `INSERT INTO chain_contracts (chain_id, name, address) VALUES ($1, $2, $3)`, chainID, name, addr); err != nil {
		return "", fmt.Errorf("chain contract %s: %w", name, err)
	}
	return addr, tx.Commit(ctx)
}
