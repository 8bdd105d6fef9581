package readmodels

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Idempotency remembers which receipt an Idempotency-Key created, for 24 hours.
type Idempotency struct{ pool *pgxpool.Pool }

// NewIdempotency returns the store on pool.
func NewIdempotency(pool *pgxpool.Pool) *Idempotency { return &Idempotency{pool: pool} }

// IdempotencyTTL is how long a key is remembered.
const IdempotencyTTL = 24 * 60 * 60 // seconds

// Claim binds (wallet, key) to receiptID and requestHash unless a live binding exists; it returns
// the binding in force (the new one, or the earlier one).
func (i *Idempotency) Claim(ctx context.Context, wallet, key, requestHash, receiptID string) (string, string, error) {
	var hash, id string
	err := i.pool.QueryRow(ctx, `INSERT INTO idempotency_keys (wallet, key, request_hash, receipt_id, created_at)
		VALUES ($1, $2, $3, $4, now())
		ON CONFLICT (wallet, key) DO UPDATE SET request_hash = EXCLUDED.request_hash, receipt_id = EXCLUDED.receipt_id, created_at = now()
			WHERE idempotency_keys.created_at < now() - make_interval(secs => $5)
		RETURNING request_hash, receipt_id`, wallet, key, requestHash, receiptID, IdempotencyTTL).Scan(&hash, &id)
	if errors.Is(err, pgx.ErrNoRows) { // a live binding exists
		err = i.pool.QueryRow(ctx, `SELECT request_hash, receipt_id FROM idempotency_keys WHERE wallet = $1 AND key = $2`, wallet, key).Scan(&hash, &id)
	}
	if err != nil {
		return "", "", fmt.Errorf("claim idempotency key: %w", err)
	}
	return hash, id, nil
}
