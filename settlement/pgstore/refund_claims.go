package pgstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/settlement"
)

// RefundClaims is the table of refund transaction hashes (migration 033), a row per hash and
// receipt (041): the refund command reserves a hash in it (commands.RefundClaims) and the refund verifier reads its work there
// (settlement.RefundClaimStore). Hashes are stored lower case.
type RefundClaims struct{ pool *pgxpool.Pool }

// NewRefundClaims returns the store over pool.
func NewRefundClaims(pool *pgxpool.Pool) *RefundClaims { return &RefundClaims{pool: pool} }

var (
	_ commands.RefundClaims       = (*RefundClaims)(nil)
	_ settlement.RefundClaimStore = (*RefundClaims)(nil)
)

// Reserve implements commands.RefundClaims: a receipt's hold on a hash is its row (migration 041),
// holders counting the requests holding it (036). Another receipt's row is no obstacle unless
// it took the hash (refund_claims_taken: proven or counted, or a hold on the merchant's word,
// which the index refuses at the insert: 23505).
func (r *RefundClaims) Reserve(ctx context.Context, hash, receiptID string, at time.Time) (bool, error) {
	var fresh bool
	err := r.pool.QueryRow(ctx, `INSERT INTO refund_claims (transaction_hash, receipt_id, claimed_at)
		SELECT $1, $2, $3 WHERE NOT EXISTS (SELECT 1 FROM refund_claims WHERE transaction_hash = $1 AND receipt_id <> $2
			AND (state = 'counted' OR block_number IS NOT NULL))
		ON CONFLICT (transaction_hash, receipt_id) DO UPDATE SET holders = refund_claims.holders + 1
		RETURNING xmax = 0`, hash, receiptID, at).Scan(&fresh)
	switch {
	case errors.Is(err, pgx.ErrNoRows), isTaken(err): // another receipt's refund took the hash
		return false, commands.ErrRefundHashTaken
	case err != nil:
		return false, fmt.Errorf("refund claims: reserve: %w", err)
	}
	return fresh, nil
}

// isTaken says whether err is a write refused by refund_claims_taken: another receipt took the hash.
func isTaken(err error) bool {
	var pg *pgconn.PgError
	return errors.As(err, &pg) && pg.Code == "23505" && pg.ConstraintName == "refund_claims_taken"
}

// Prove implements settlement.RefundClaimStore: the claim takes its hash with the block that
// proves it, unless another receipt's refund took it first (the index refund_claims_taken makes
// two at once one).
func (r *RefundClaims) Prove(ctx context.Context, hash, receiptID string, blockNumber uint64, blockHash string) (bool, error) {
	tag, err := r.pool.Exec(ctx, `UPDATE refund_claims SET block_number = $3, block_hash = $4
		WHERE transaction_hash = $1 AND receipt_id = $2 AND state = 'claimed'`, hash, receiptID, int64(blockNumber), blockHash)
	switch {
	case isTaken(err):
		return false, settlement.ErrRefundHashTaken
	case err != nil:
		return false, wrapClaims("prove", err)
	}
	return tag.RowsAffected() == 1, nil
}

// Release implements commands.RefundClaims: one hold less, and the claim deleted when no request
// holds it. The two statements may interleave with a Reserve of the same receipt: the delete
// then finds a hold again and leaves the row.
func (r *RefundClaims) Release(ctx context.Context, hash, receiptID string) error {
	if _, err := r.pool.Exec(ctx, `UPDATE refund_claims SET holders = holders - 1
		WHERE transaction_hash = $1 AND receipt_id = $2 AND holders > 0`, hash, receiptID); err != nil {
		return wrapClaims("release", err)
	}
	_, err := r.pool.Exec(ctx, `DELETE FROM refund_claims WHERE transaction_hash = $1 AND receipt_id = $2
		AND holders = 0 AND state = 'claimed'`, hash, receiptID)
	return wrapClaims("release", err)
}

// Claimed implements settlement.RefundClaimStore (the index refund_claims_open orders by
// claimed_at; the hash and the receipt only break ties).
func (r *RefundClaims) Claimed(ctx context.Context, after settlement.RefundClaim, limit int) ([]settlement.RefundClaim, error) {
	if after.TransactionHash == "" {
		return r.list(ctx, `SELECT transaction_hash, receipt_id, claimed_at, 0, '', holders FROM refund_claims
			WHERE state = 'claimed' ORDER BY claimed_at, transaction_hash, receipt_id LIMIT $1`, limit)
	}
	return r.list(ctx, `SELECT transaction_hash, receipt_id, claimed_at, 0, '', holders FROM refund_claims
		WHERE state = 'claimed' AND (claimed_at, transaction_hash, receipt_id) > ($2, $3, $4)
		ORDER BY claimed_at, transaction_hash, receipt_id LIMIT $1`,
		limit, after.ClaimedAt, after.TransactionHash, after.ReceiptID)
}

// CountedSince implements settlement.RefundClaimStore.
func (r *RefundClaims) CountedSince(ctx context.Context, block uint64) ([]settlement.RefundClaim, error) {
	return r.list(ctx, `SELECT transaction_hash, receipt_id, claimed_at, block_number, block_hash, holders FROM refund_claims
		WHERE state = 'counted' AND block_number IS NOT NULL AND block_number > $1 ORDER BY block_number`, int64(block))
}

func (r *RefundClaims) list(ctx context.Context, query string, args ...any) ([]settlement.RefundClaim, error) {
	rows, err := r.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("refund claims: list: %w", err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (settlement.RefundClaim, error) {
		var c settlement.RefundClaim
		var block int64
		err := row.Scan(&c.TransactionHash, &c.ReceiptID, &c.ClaimedAt, &block, &c.BlockHash, &c.Holders)
		c.BlockNumber = uint64(block)
		return c, err
	})
}

// Counted implements settlement.RefundClaimStore.
func (r *RefundClaims) Counted(ctx context.Context, hash, receiptID string, blockNumber uint64, blockHash string) error {
	var number any
	if blockNumber > 0 {
		number = int64(blockNumber)
	}
	_, err := r.pool.Exec(ctx, `UPDATE refund_claims SET state = 'counted', block_number = $3, block_hash = NULLIF($4, ''), counted_at = now()
		WHERE transaction_hash = $1 AND receipt_id = $2`, hash, receiptID, number, blockHash)
	return wrapClaims("counted", err)
}

// Free implements settlement.RefundClaimStore: the row is deleted only if it has the holders c
// was read with; else (reserved again meanwhile) it stays a claim from at. Both in one statement:
// the update sees the delete's result, and a Reserve committed meanwhile is seen by the delete's
// recheck of the row it waited for.
func (r *RefundClaims) Free(ctx context.Context, c settlement.RefundClaim, at time.Time) error {
	_, err := r.pool.Exec(ctx, `WITH gone AS (
			DELETE FROM refund_claims WHERE transaction_hash = $1 AND receipt_id = $2 AND holders = $3 RETURNING 1)
		UPDATE refund_claims SET claimed_at = $4, block_number = NULL, block_hash = NULL WHERE transaction_hash = $1 AND receipt_id = $2 AND state = 'claimed'
			AND NOT EXISTS (SELECT 1 FROM gone)`, c.TransactionHash, c.ReceiptID, c.Holders, at)
	return wrapClaims("free", err)
}

// Reclaimed implements settlement.RefundClaimStore.
func (r *RefundClaims) Reclaimed(ctx context.Context, hash, receiptID string, at time.Time) error {
	_, err := r.pool.Exec(ctx, `UPDATE refund_claims SET state = 'claimed', block_number = NULL, block_hash = NULL, counted_at = NULL,
		claimed_at = $3 WHERE transaction_hash = $1 AND receipt_id = $2`, hash, receiptID, at)
	return wrapClaims("reclaimed", err)
}

func wrapClaims(op string, err error) error {
	if err != nil {
		return fmt.Errorf("refund claims: %s: %w", op, err)
	}
	return nil
}
