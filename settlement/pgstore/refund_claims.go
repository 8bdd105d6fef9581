package pgstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/settlement"
)

// RefundClaims is the table of refund transaction hashes (migration 033): the refund command
// reserves a hash in it (commands.RefundClaims) and the refund verifier reads its work there
// (settlement.RefundClaimStore). Hashes are stored lower case.
type RefundClaims struct{ pool *pgxpool.Pool }

// NewRefundClaims returns the store over pool.
func NewRefundClaims(pool *pgxpool.Pool) *RefundClaims { return &RefundClaims{pool: pool} }

var (
	_ commands.RefundClaims       = (*RefundClaims)(nil)
	_ settlement.RefundClaimStore = (*RefundClaims)(nil)
)

// Reserve implements commands.RefundClaims: the primary key holds the hash for one receipt.
func (r *RefundClaims) Reserve(ctx context.Context, hash, receiptID string, at time.Time) (bool, error) {
	for range 2 { // a hash freed between the insert and the read is tried once more
		tag, err := r.pool.Exec(ctx, `INSERT INTO refund_claims (transaction_hash, receipt_id, claimed_at) VALUES ($1, $2, $3)
			ON CONFLICT (transaction_hash) DO NOTHING`, hash, receiptID, at)
		if err != nil {
			return false, fmt.Errorf("refund claims: reserve: %w", err)
		}
		if tag.RowsAffected() == 1 {
			return true, nil
		}
		var holder string
		err = r.pool.QueryRow(ctx, `SELECT receipt_id FROM refund_claims WHERE transaction_hash = $1`, hash).Scan(&holder)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			continue
		case err != nil:
			return false, fmt.Errorf("refund claims: holder: %w", err)
		case holder != receiptID:
			return false, commands.ErrRefundHashTaken
		}
		return false, nil
	}
	return false, fmt.Errorf("refund claims: reserve %s: freed and taken again meanwhile", hash)
}

// Release implements commands.RefundClaims.
func (r *RefundClaims) Release(ctx context.Context, hash, receiptID string) error {
	return r.Free(ctx, hash, receiptID)
}

// Claimed implements settlement.RefundClaimStore.
func (r *RefundClaims) Claimed(ctx context.Context, limit int) ([]settlement.RefundClaim, error) {
	return r.list(ctx, `SELECT transaction_hash, receipt_id, claimed_at, 0, '' FROM refund_claims
		WHERE state = 'claimed' ORDER BY claimed_at LIMIT $1`, limit)
}

// CountedSince implements settlement.RefundClaimStore.
func (r *RefundClaims) CountedSince(ctx context.Context, block uint64) ([]settlement.RefundClaim, error) {
	return r.list(ctx, `SELECT transaction_hash, receipt_id, claimed_at, block_number, block_hash FROM refund_claims
		WHERE state = 'counted' AND block_number IS NOT NULL AND block_number > $1 ORDER BY block_number`, int64(block))
}

func (r *RefundClaims) list(ctx context.Context, query string, arg any) ([]settlement.RefundClaim, error) {
	rows, err := r.pool.Query(ctx, query, arg)
	if err != nil {
		return nil, fmt.Errorf("refund claims: list: %w", err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (settlement.RefundClaim, error) {
		var c settlement.RefundClaim
		var block int64
		err := row.Scan(&c.TransactionHash, &c.ReceiptID, &c.ClaimedAt, &block, &c.BlockHash)
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

// Free implements settlement.RefundClaimStore.
func (r *RefundClaims) Free(ctx context.Context, hash, receiptID string) error {
	_, err := r.pool.Exec(ctx, `DELETE FROM refund_claims WHERE transaction_hash = $1 AND receipt_id = $2`, hash, receiptID)
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
