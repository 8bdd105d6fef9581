package readmodels

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payledger/payledger/internal/secrets"
)

// IdempotentResponses keeps the first answer to each (principal, Idempotency-Key) for
// IdempotencyTTL (migration 025), its body sealed with the webhook keys' AES-256-GCM.
type IdempotentResponses struct {
	pool *pgxpool.Pool
	keys *secrets.WebhookKeys
}

// NewIdempotentResponses returns the store on pool; keys seals the kept bodies.
func NewIdempotentResponses(pool *pgxpool.Pool, keys *secrets.WebhookKeys) *IdempotentResponses {
	return &IdempotentResponses{pool: pool, keys: keys}
}

// Kept is what a claim found: the request runs (Run), or its first answer is kept (Done), or
// another request holds the key (Running), or the key names another request (Conflict).
type Kept struct {
	Run, Done, Running, Conflict bool
	Status                       int
	ContentType                  string
	Body                         []byte
}

func sealAAD(principal, key string) string { return "idempotency:" + principal + ":" + key }

// Claim takes (principal, key) for a request with hash, for lock: a new key, one older than the
// TTL, or one whose holder with the same hash stopped answering before lock ran out.
func (s *IdempotentResponses) Claim(ctx context.Context, principal, key, hash string, lock time.Duration) (Kept, error) {
	tag, err := s.pool.Exec(ctx, `INSERT INTO idempotent_responses (principal, key, request_hash, locked_until)
		VALUES ($1, $2, $3, now() + make_interval(secs => $4))
		ON CONFLICT (principal, key) DO UPDATE SET request_hash = EXCLUDED.request_hash, done = false, status = NULL,
			content_type = NULL, body_nonce = NULL, body_sealed = NULL, created_at = now(), locked_until = EXCLUDED.locked_until
		WHERE idempotent_responses.created_at < now() - make_interval(secs => $5)
		   OR (NOT idempotent_responses.done AND idempotent_responses.locked_until < now() AND idempotent_responses.request_hash = $3)`,
		principal, key, hash, lock.Seconds(), IdempotencyTTL)
	if err != nil {
		return Kept{}, fmt.Errorf("claim idempotency key: %w", err)
	}
	if tag.RowsAffected() == 1 {
		// Best effort: a purge that fails leaves expired keys for the next claim's.
		_ = PurgeExpiredKeys(ctx, s.pool)
		return Kept{Run: true}, nil
	}
	var k Kept
	var held string
	var status *int
	var ctype *string
	var nonce, sealed []byte
	err = s.pool.QueryRow(ctx, `SELECT request_hash, done, status, content_type, body_nonce, body_sealed FROM idempotent_responses
		WHERE principal = $1 AND key = $2`, principal, key).Scan(&held, &k.Done, &status, &ctype, &nonce, &sealed)
	if errors.Is(err, pgx.ErrNoRows) {
		return Kept{Running: true}, nil // released meanwhile: the caller claims again
	}
	if err != nil {
		return Kept{}, fmt.Errorf("read idempotency key: %w", err)
	}
	switch {
	case held != hash:
		return Kept{Conflict: true}, nil
	case !k.Done:
		return Kept{Running: true}, nil
	}
	body, err := s.keys.Open(sealAAD(principal, key), nonce, sealed)
	if err != nil {
		return Kept{}, err
	}
	k.Status, k.ContentType, k.Body = *status, *ctype, []byte(body)
	return k, nil
}

// Finish keeps the answer of the request that claimed (principal, key).
func (s *IdempotentResponses) Finish(ctx context.Context, principal, key string, status int, contentType string, body []byte) error {
	nonce, sealed, err := s.keys.Seal(sealAAD(principal, key), string(body))
	if err != nil {
		return err
	}
	_, err = s.pool.Exec(ctx, `UPDATE idempotent_responses SET done = true, status = $3, content_type = $4, body_nonce = $5, body_sealed = $6
		WHERE principal = $1 AND key = $2 AND NOT done`, principal, key, status, contentType, nonce, sealed)
	if err != nil {
		return fmt.Errorf("keep idempotent answer: %w", err)
	}
	return nil
}

// Supersede replaces the kept answer of (principal, key) with another: one that must no longer
// be given (the API key it created was revoked since), so that the store does not keep it either.
func (s *IdempotentResponses) Supersede(ctx context.Context, principal, key string, status int, contentType string, body []byte) error {
	nonce, sealed, err := s.keys.Seal(sealAAD(principal, key), string(body))
	if err != nil {
		return err
	}
	_, err = s.pool.Exec(ctx, `UPDATE idempotent_responses SET status = $3, content_type = $4, body_nonce = $5, body_sealed = $6
		WHERE principal = $1 AND key = $2 AND done`, principal, key, status, contentType, nonce, sealed)
	if err != nil {
		return fmt.Errorf("replace idempotent answer: %w", err)
	}
	return nil
}

// Release forgets a claim whose request kept no answer (a server error): a retry runs again.
func (s *IdempotentResponses) Release(ctx context.Context, principal, key string) error {
	_, err := s.pool.Exec(ctx, `DELETE FROM idempotent_responses WHERE principal = $1 AND key = $2 AND NOT done`, principal, key)
	if err != nil {
		return fmt.Errorf("release idempotency key: %w", err)
	}
	return nil
}

// purgeBatch is how many expired keys one purge deletes: more than one claim adds, so that the
// tables stay near the keys of the last IdempotencyTTL.
const purgeBatch = 100

// PurgeExpiredKeys deletes up to purgeBatch keys older than IdempotencyTTL, oldest first, from
// both stores: the middleware's rows and the receipt issuer's bindings they mirror. Nothing
// deleted them before, so both tables (and the kept answers, up to 1 MiB each) grew with every
// key ever used. A key claimed again meanwhile (its created_at renewed) is left alone: each
// DELETE checks the age on the row it deletes.
func PurgeExpiredKeys(ctx context.Context, pool *pgxpool.Pool) error {
	_, err := pool.Exec(ctx, `WITH gone AS (
		DELETE FROM idempotent_responses WHERE (principal, key) IN (
			SELECT principal, key FROM idempotent_responses WHERE created_at < now() - make_interval(secs => $1)
			ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED)
		  AND created_at < now() - make_interval(secs => $1)
		RETURNING principal, key)
	DELETE FROM idempotency_keys k USING gone g
	WHERE g.principal = 'wallet:' || k.wallet AND g.key = k.key AND k.created_at < now() - make_interval(secs => $1)`,
		IdempotencyTTL, purgeBatch)
	if err != nil {
		return fmt.Errorf("purge idempotency keys: %w", err)
	}
	return nil
}
