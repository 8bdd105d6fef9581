package readmodels

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payledger/payledger/domain/receipt"
)

// Idempotency remembers which receipt an Idempotency-Key created, for 24 hours.
//
// One key names one request whichever store holds it (DESIGN 10): the receipt issuer's binding
// (idempotency_keys) is mirrored by a row of the Idempotency-Key middleware's table
// (idempotent_responses, IdempotentResponses) under the same principal ("wallet:" + wallet),
// with the binding's request hash and never done. The middleware's claim of the key for another
// request then finds it held by another hash (a conflict), and a key the middleware holds for
// another request is a conflict here. Both claims meet on that table's primary key, so two
// requests racing for one key on the two sides never both win.
type Idempotency struct{ pool *pgxpool.Pool }

// NewIdempotency returns the store on pool.
func NewIdempotency(pool *pgxpool.Pool) *Idempotency { return &Idempotency{pool: pool} }

// IdempotencyTTL is how long a key is remembered.
const IdempotencyTTL = 24 * 60 * 60 // seconds

// purgeOneIn: one new binding in purgeOneIn purges expired keys (PurgeExpiredKeys), so that the
// order path pays a purge on 1/64 of its keyed orders (and deletes more than it adds).
const purgeOneIn = 64

// idemPrincipal is the middleware's principal of a merchant (transport's "wallet:" + wallet).
func idemPrincipal(wallet string) string { return "wallet:" + wallet }

// Claim binds (wallet, key) to receiptID and requestHash unless a live binding exists; it returns
// the binding in force (the new one, or the earlier one). A key the middleware holds for another
// request returns that request's hash (and no receipt id): the caller's hash differs from it.
func (i *Idempotency) Claim(ctx context.Context, wallet, key, requestHash, receiptID string) (string, string, error) {
	hash, id, at, err := i.bind(ctx, wallet, key, requestHash, receiptID)
	if err != nil {
		return "", "", err
	}
	if hash != requestHash {
		return hash, id, nil
	}
	held, err := i.mirror(ctx, wallet, key, hash, at)
	if err != nil {
		return "", "", err
	}
	if id == receiptID && rand.IntN(purgeOneIn) == 0 { // a new binding: now and then, forget expired ones
		_ = PurgeExpiredKeys(ctx, i.pool) // best effort, as the middleware's claims
	}
	if held != hash { // the middleware holds the key for another request: our binding is void
		if _, err := i.pool.Exec(ctx, `DELETE FROM idempotency_keys WHERE wallet = $1 AND key = $2 AND request_hash = $3 AND receipt_id = $4`,
			wallet, key, hash, receiptID); err != nil {
			return "", "", fmt.Errorf("claim idempotency key: %w", err)
		}
		return held, "", nil
	}
	return hash, id, nil
}

// Bound returns the live binding of (wallet, key) without claiming it: its request hash and
// receipt id, or "", "" when the key is free (never bound, expired or released).
func (i *Idempotency) Bound(ctx context.Context, wallet, key string) (string, string, error) {
	var hash, id string
	err := i.pool.QueryRow(ctx, `SELECT request_hash, receipt_id FROM idempotency_keys
		WHERE wallet = $1 AND key = $2 AND created_at >= now() - make_interval(secs => $3)`, wallet, key, IdempotencyTTL).Scan(&hash, &id)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", "", nil
	}
	if err != nil {
		return "", "", fmt.Errorf("read idempotency key: %w", err)
	}
	return hash, id, nil
}

// bindTries bounds how often bind finds a live binding gone before it reads it.
const bindTries = 3

// bind stores (wallet, key) -> (requestHash, receiptID) unless a live binding exists, and returns
// the binding in force with its creation time. A live binding released between the insert that
// met it and the read of it (a duplicate of the same request, refused after its claim) leaves
// the key free: the insert is tried again. That read's "no rows" was a 500 for an order whose
// duplicate answered 400.
func (i *Idempotency) bind(ctx context.Context, wallet, key, requestHash, receiptID string) (hash, id string, at time.Time, err error) {
	for range bindTries {
		err = i.pool.QueryRow(ctx, `INSERT INTO idempotency_keys (wallet, key, request_hash, receipt_id, created_at)
			VALUES ($1, $2, $3, $4, now())
			ON CONFLICT (wallet, key) DO UPDATE SET request_hash = EXCLUDED.request_hash, receipt_id = EXCLUDED.receipt_id, created_at = now()
				WHERE idempotency_keys.created_at < now() - make_interval(secs => $5)
			RETURNING request_hash, receipt_id, created_at`, wallet, key, requestHash, receiptID, IdempotencyTTL).Scan(&hash, &id, &at)
		if errors.Is(err, pgx.ErrNoRows) { // a live binding exists
			err = i.pool.QueryRow(ctx, `SELECT request_hash, receipt_id, created_at FROM idempotency_keys WHERE wallet = $1 AND key = $2`,
				wallet, key).Scan(&hash, &id, &at)
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			break
		}
	}
	if err != nil {
		return "", "", time.Time{}, fmt.Errorf("claim idempotency key: %w", err)
	}
	return hash, id, at, nil
}

// mirror holds (wallet, key) in idempotent_responses for the binding (hash, made at) unless the
// middleware holds it live for another request; it returns the hash the key is held for there.
// The row lives as long as the binding (its created_at), and is never done, so the middleware
// never answers from it and never takes it over (its hash covers another route).
func (i *Idempotency) mirror(ctx context.Context, wallet, key, hash string, at time.Time) (string, error) {
	var held string
	err := i.pool.QueryRow(ctx, `INSERT INTO idempotent_responses (principal, key, request_hash, created_at, locked_until)
		VALUES ($1, $2, $3, $4::timestamptz, $4::timestamptz + make_interval(secs => $5))
		ON CONFLICT (principal, key) DO UPDATE SET request_hash = EXCLUDED.request_hash, done = false, status = NULL,
			content_type = NULL, body_nonce = NULL, body_sealed = NULL, created_at = EXCLUDED.created_at, locked_until = EXCLUDED.locked_until
		WHERE idempotent_responses.created_at < now() - make_interval(secs => $5)
		   OR (idempotent_responses.request_hash = EXCLUDED.request_hash AND NOT idempotent_responses.done)
		RETURNING request_hash`, idemPrincipal(wallet), key, hash, at, IdempotencyTTL).Scan(&held)
	if errors.Is(err, pgx.ErrNoRows) { // held live for another request (or done: answered by the middleware)
		err = i.pool.QueryRow(ctx, `SELECT request_hash FROM idempotent_responses WHERE principal = $1 AND key = $2`,
			idemPrincipal(wallet), key).Scan(&held)
		if errors.Is(err, pgx.ErrNoRows) { // released meanwhile: hold it now
			return i.mirror(ctx, wallet, key, hash, at)
		}
	}
	if err != nil {
		return "", fmt.Errorf("claim idempotency key: %w", err)
	}
	return held, nil
}

// Release forgets the binding of (wallet, key) to receiptID and requestHash, and its row in the
// middleware's table: the request it was claimed for stored no receipt, so the key is free for
// another request. A binding made since by another claim is left alone.
func (i *Idempotency) Release(ctx context.Context, wallet, key, requestHash, receiptID string) error {
	// Never once this request's receipt exists: a retry that found the binding may have stored it
	// meanwhile (it appends under the bound id), and a free key would let the next retry make a
	// second one. A receipt of that id made by another request (the id was taken) does not count.
	tag, err := i.pool.Exec(ctx, `DELETE FROM idempotency_keys WHERE wallet = $1 AND key = $2 AND request_hash = $3 AND receipt_id = $4
		AND NOT EXISTS (SELECT 1 FROM events WHERE stream_id = $5 AND version = 1 AND data->>'requestHash' = $3)`,
		wallet, key, requestHash, receiptID, receipt.Stream(receiptID))
	if err == nil && tag.RowsAffected() == 1 {
		_, err = i.pool.Exec(ctx, `DELETE FROM idempotent_responses WHERE principal = $1 AND key = $2 AND request_hash = $3 AND NOT done`,
			idemPrincipal(wallet), key, requestHash)
	}
	if err != nil {
		return fmt.Errorf("release idempotency key: %w", err)
	}
	return nil
}
