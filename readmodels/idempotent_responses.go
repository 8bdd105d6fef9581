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
// IdempotencyTTL (migration 025), its body sealed with the webhook keys' AES-256-GCM, at most
// MaxKeptAnswers (and MaxKeptBytes) per principal (migration 049).
type IdempotentResponses struct {
	pool       *pgxpool.Pool
	keys       *secrets.WebhookKeys
	maxAnswers int
	maxBytes   int64
}

// NewIdempotentResponses returns the store on pool; keys seals the kept bodies.
func NewIdempotentResponses(pool *pgxpool.Pool, keys *secrets.WebhookKeys) *IdempotentResponses {
	return &IdempotentResponses{pool: pool, keys: keys, maxAnswers: MaxKeptAnswers, maxBytes: MaxKeptBytes}
}

// WithBound returns the store with another bound on each principal's kept answers and their bytes.
func (s *IdempotentResponses) WithBound(answers int, bytes int64) *IdempotentResponses {
	c := *s
	c.maxAnswers, c.maxBytes = answers, bytes
	return &c
}

// Kept is what a claim found: the request runs (Run), or its first answer is kept (Done), or
// another request holds the key (Running), or the key names another request (Conflict), or the
// key is new and the principal holds as many kept answers as it may (Full: refused until
// ResetAt, when the oldest of them leave the count).
type Kept struct {
	Run, Done, Running, Conflict, Full bool
	Status                             int
	ContentType                        string
	Body                               []byte
	ResetAt                            time.Time
}

// The bound on a principal's kept answers within IdempotencyTTL (migration 049): a claim of a new
// key (or one expired) is refused once the principal's keys claimed in the window reach
// MaxKeptAnswers, or the answers kept in it MaxKeptBytes. Claims of one principal are counted
// one at a time (Claim's lock), so racing claims do not pass it. A replay, a conflict and a wait
// for a running request are never refused.
const (
	MaxKeptAnswers = 10_000
	MaxKeptBytes   = 128 << 20
)

func sealAAD(principal, key string) string { return "idempotency:" + principal + ":" + key }

// keptWindow: the principal's counters a claim sums, the current UTC hour and the 24 before it,
// so that a key is counted for 24 to 25 hours (at least as long as its answer is kept).
const keptWindow = `hour >= date_trunc('hour', now(), 'UTC') - interval '24 hours'`

// claimSQL takes (principal, key) as Claim says, unless the key is new (or expired) and the
// principal's counters are at the bound; a key taken is counted in the current hour, and the
// principal's counters older than the window are deleted. It returns whether the key was
// taken, whether there was room, and when the oldest counted hour leaves the window.
const claimSQL = `WITH used AS (
		SELECT coalesce(sum(answers), 0) < $6 AND coalesce(sum(bytes), 0) < $7 AS room,
			min(hour) FILTER (WHERE answers > 0 OR bytes > 0) + interval '25 hours' AS reset
		FROM idempotent_kept WHERE principal = $1 AND ` + keptWindow + `),
	claimed AS (
		INSERT INTO idempotent_responses (principal, key, request_hash, locked_until)
		SELECT $1, $2, $3, now() + make_interval(secs => $4) FROM used
		WHERE used.room OR EXISTS (SELECT 1 FROM idempotent_responses WHERE principal = $1 AND key = $2)
		ON CONFLICT (principal, key) DO UPDATE SET request_hash = EXCLUDED.request_hash, done = false, status = NULL,
			content_type = NULL, body_nonce = NULL, body_sealed = NULL, created_at = now(), locked_until = EXCLUDED.locked_until
		WHERE (idempotent_responses.created_at < now() - make_interval(secs => $5) AND (SELECT room FROM used))
		   OR (NOT idempotent_responses.done AND idempotent_responses.locked_until < now() AND idempotent_responses.request_hash = $3)
		RETURNING principal),
	counted AS (
		INSERT INTO idempotent_kept (principal, hour, answers) SELECT principal, date_trunc('hour', now(), 'UTC'), 1 FROM claimed
		ON CONFLICT (principal, hour) DO UPDATE SET answers = idempotent_kept.answers + 1),
	aged AS (
		DELETE FROM idempotent_kept WHERE principal = $1 AND NOT (` + keptWindow + `))
	SELECT (SELECT count(*) FROM claimed) = 1, room, reset FROM used`

// Claim takes (principal, key) for a request with hash, for lock: a new key, one older than the
// TTL, or one whose holder with the same hash stopped answering before lock ran out. A new or
// expired key is refused (Full) while the principal is at the bound (MaxKeptAnswers).
func (s *IdempotentResponses) Claim(ctx context.Context, principal, key, hash string, lock time.Duration) (Kept, error) {
	var taken, room bool
	var reset *time.Time
	// The count and the claim run under a per-principal lock held to commit (as the API keys'
	// bound, keys.go): a statement reads the counters as they were when it began, so claims that
	// raced each counted the others' as absent and as many as ran at once passed the bound.
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('payledger idempotent kept:' || $1::text, 0))`, principal); err != nil {
			return err
		}
		return tx.QueryRow(ctx, claimSQL, principal, key, hash, lock.Seconds(), IdempotencyTTL, s.maxAnswers, s.maxBytes).
			Scan(&taken, &room, &reset)
	})
	if err != nil {
		return Kept{}, fmt.Errorf("claim idempotency key: %w", err)
	}
	if taken {
		// Best effort: a purge that fails leaves expired keys for the next claim's.
		_ = PurgeExpiredKeys(ctx, s.pool)
		return Kept{Run: true}, nil
	}
	k, found, err := s.held(ctx, principal, key, hash)
	switch {
	case err != nil || found:
		return k, err
	case !room: // the key is free (never used, or expired) and the principal is at the bound
		k = Kept{Full: true}
		if reset != nil {
			k.ResetAt = *reset
		}
		return k, nil
	}
	return Kept{Running: true}, nil // released meanwhile: the caller claims again
}

// held reads the live claim of (principal, key) that Claim did not take: its kept answer, or
// another request holding it, or the request running; found is false when the key is free (no
// row, or one older than the TTL, which an expired key's claim refused at the bound leaves).
func (s *IdempotentResponses) held(ctx context.Context, principal, key, hash string) (Kept, bool, error) {
	var k Kept
	var held string
	var status *int
	var ctype *string
	var nonce, sealed []byte
	err := s.pool.QueryRow(ctx, `SELECT request_hash, done, status, content_type, body_nonce, body_sealed FROM idempotent_responses
		WHERE principal = $1 AND key = $2 AND created_at >= now() - make_interval(secs => $3)`, principal, key, IdempotencyTTL).
		Scan(&held, &k.Done, &status, &ctype, &nonce, &sealed)
	if errors.Is(err, pgx.ErrNoRows) {
		return Kept{}, false, nil
	}
	if err != nil {
		return Kept{}, false, fmt.Errorf("read idempotency key: %w", err)
	}
	switch {
	case held != hash:
		return Kept{Conflict: true}, true, nil
	case !k.Done:
		return Kept{Running: true}, true, nil
	}
	body, err := s.keys.Open(sealAAD(principal, key), nonce, sealed)
	if err != nil {
		return Kept{}, false, err
	}
	k.Status, k.ContentType, k.Body = *status, *ctype, []byte(body)
	return k, true, nil
}

// Finish keeps the answer of the request that claimed (principal, key).
func (s *IdempotentResponses) Finish(ctx context.Context, principal, key string, status int, contentType string, body []byte) error {
	nonce, sealed, err := s.keys.Seal(sealAAD(principal, key), string(body))
	if err != nil {
		return err
	}
	// The answer's bytes count in the hour its key was claimed in (Claim's bound).
	_, err = s.pool.Exec(ctx, `WITH kept AS (
			UPDATE idempotent_responses SET done = true, status = $3, content_type = $4, body_nonce = $5, body_sealed = $6
			WHERE principal = $1 AND key = $2 AND NOT done RETURNING principal, created_at)
		INSERT INTO idempotent_kept (principal, hour, bytes) SELECT principal, date_trunc('hour', created_at, 'UTC'), $7 FROM kept
		ON CONFLICT (principal, hour) DO UPDATE SET bytes = idempotent_kept.bytes + EXCLUDED.bytes`,
		principal, key, status, contentType, nonce, sealed, len(sealed))
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

// Release forgets a claim whose request kept no answer (a server error): a retry runs again, and
// the claim no longer counts against the principal's bound (it keeps nothing).
func (s *IdempotentResponses) Release(ctx context.Context, principal, key string) error {
	_, err := s.pool.Exec(ctx, `WITH gone AS (
			DELETE FROM idempotent_responses WHERE principal = $1 AND key = $2 AND NOT done RETURNING principal, created_at)
		UPDATE idempotent_kept k SET answers = greatest(k.answers - 1, 0) FROM gone
		WHERE k.principal = gone.principal AND k.hour = date_trunc('hour', gone.created_at, 'UTC')`, principal, key)
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
