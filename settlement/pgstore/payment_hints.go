package pgstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
)

// PaymentHints keeps the payment pages' hints outside the receipts' streams (migration 031,
// DESIGN 10).
type PaymentHints struct{ pool *pgxpool.Pool }

var _ commands.PaymentHints = (*PaymentHints)(nil)

// NewPaymentHints returns the hint store on pool.
func NewPaymentHints(pool *pgxpool.Pool) *PaymentHints { return &PaymentHints{pool: pool} }

// Keep stores h as waiting unless its receipt took max hints in the hour before h.SubmittedAt
// (commands.ErrHintsLimited); fresh is false when the receipt holds this hash already. The
// receipt's hints are counted under a transaction-scoped advisory lock on the receipt, so that
// concurrent hints cannot pass the limit together.
func (p *PaymentHints) Keep(ctx context.Context, h commands.PaymentHint, max int) (bool, error) {
	var fresh bool
	err := pgx.BeginFunc(ctx, p.pool, func(tx pgx.Tx) error {
		// The lock first, in a statement of its own: the count's statement then takes a snapshot
		// that sees every hint committed by whoever held the lock before.
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('payment_hints/' || $1, 0))`, h.ReceiptID); err != nil {
			return err
		}
		var held, recent int
		var oldest pgtype.Timestamptz
		err := tx.QueryRow(ctx, `SELECT count(*) FILTER (WHERE transaction_hash = $2), count(*) FILTER (WHERE submitted_at > $3),
			min(submitted_at) FILTER (WHERE submitted_at > $3)
			FROM payment_hints WHERE receipt_id = $1`, h.ReceiptID, h.TransactionHash, h.SubmittedAt.Add(-time.Hour)).Scan(&held, &recent, &oldest)
		switch {
		case err != nil:
			return err
		case held > 0:
			return nil
		case recent >= max:
			// The hour is a sliding one: the oldest hint in it leaves it first.
			return receipt.NewLimited(commands.ErrHintsLimited, oldest.Time.Add(time.Hour).UnixMilli())
		}
		fresh = true
		_, err = tx.Exec(ctx, `INSERT INTO payment_hints (receipt_id, transaction_hash, token, buyer_wallet, submitted_at)
			VALUES ($1, $2, $3, $4, $5)`, h.ReceiptID, h.TransactionHash, h.Token, h.BuyerWallet, h.SubmittedAt)
		return err
	})
	if errors.Is(err, commands.ErrHintsLimited) {
		return false, err // the *receipt.Limited, with its reset
	}
	if err != nil {
		return false, fmt.Errorf("keep payment hint for %s: %w", h.ReceiptID, err)
	}
	return fresh, nil
}

// Waiting lists up to limit hints still waiting that were submitted at or after since, oldest
// first (index payment_hints_waiting).
func (p *PaymentHints) Waiting(ctx context.Context, since time.Time, limit int) ([]commands.PaymentHint, error) {
	rows, err := p.pool.Query(ctx, `SELECT receipt_id, transaction_hash, token, buyer_wallet, submitted_at FROM payment_hints
		WHERE state = 'waiting' AND submitted_at >= $1 ORDER BY submitted_at LIMIT $2`, since, limit)
	if err != nil {
		return nil, fmt.Errorf("waiting payment hints: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (commands.PaymentHint, error) {
		var h commands.PaymentHint
		err := r.Scan(&h.ReceiptID, &h.TransactionHash, &h.Token, &h.BuyerWallet, &h.SubmittedAt)
		return h, err
	})
	if err != nil {
		return nil, fmt.Errorf("waiting payment hints: %w", err)
	}
	return out, nil
}

// Decide records a waiting hint's outcome; a hint decided already keeps its first outcome.
func (p *PaymentHints) Decide(ctx context.Context, receiptID, hash, state string, at time.Time) error {
	_, err := p.pool.Exec(ctx, `UPDATE payment_hints SET state = $3, decided_at = $4
		WHERE receipt_id = $1 AND transaction_hash = $2 AND state = 'waiting'`, receiptID, hash, state, at)
	if err != nil {
		return fmt.Errorf("decide payment hint: %w", err)
	}
	return nil
}

// Expire marks expired every hint still waiting that was submitted before before, and forgets
// decided hints a week old (the hourly limit reads only the last hour).
func (p *PaymentHints) Expire(ctx context.Context, before, at time.Time) (int, error) {
	tag, err := p.pool.Exec(ctx, `WITH gone AS (DELETE FROM payment_hints WHERE state <> 'waiting' AND submitted_at < $3)
		UPDATE payment_hints SET state = 'expired', decided_at = $2 WHERE state = 'waiting' AND submitted_at < $1`,
		before, at, at.Add(-7*24*time.Hour))
	if err != nil {
		return 0, fmt.Errorf("expire payment hints: %w", err)
	}
	return int(tag.RowsAffected()), nil
}
