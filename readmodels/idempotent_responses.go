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
	reserve    int64 // bytes a claim counts until its answer is kept (reservation)
}

// NewIdempotentResponses returns the store on pool; keys seals the kept bodies.
func NewIdempotentResponses(pool *pgxpool.Pool, keys *secrets.WebhookKeys) *IdempotentResponses {
	return (&IdempotentResponses{pool: pool, keys: keys}).WithBound(MaxKeptAnswers, MaxKeptBytes)
}

// WithBound returns the store with another bound on each principal's kept answers and their bytes.
func (s *IdempotentResponses) WithBound(answers int, bytes int64) *IdempotentResponses {
	c := *s
	c.maxAnswers, c.maxBytes = answers, bytes
	c.reserve = reservation(bytes)
	return &c
}

// Bound is the store's bound on each principal's kept answers and their bytes (as the refusal
// tells the client).
func (s *IdempotentResponses) Bound() (answers int, bytes int64) { return s.maxAnswers, s.maxBytes }

// reservation is what a claim counts in bytes until its answer is kept: the largest sealed
// answer, or the whole bound when that is smaller (one claim then fills it). Counted at the
// claim, the bytes of answers not yet kept cannot pass the bound by more than one answer: before,
// they were counted only when kept, after the claim's check, so every request of a principal
// running at once passed a bound its answers then overran (up to 1 MiB each).
func reservation(maxBytes int64) int64 {
	return max(0, min(int64(MaxKeptAnswerBytes+sealOverhead), maxBytes))
}

// Kept is what a claim found: the request runs (Run), or its first answer is kept (Done), or
// another request holds the key (Running), or the key names another request (Conflict), or the
// key is new and the principal holds as many kept answers as it may (Full: refused until
// ResetAt, when the oldest of them leave the count).
type Kept struct {
	Run, Done, Running, Conflict, Full bool
	// TakenOver (with Run): the key was held by a request whose instance stopped answering before
	// it kept or released an answer (its lock ran out), so that request may have done its work.
	TakenOver   bool
	Status      int
	ContentType string
	Body        []byte
	ResetAt     time.Time
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

// MaxKeptAnswerBytes is the largest answer the middleware keeps (transport's idemMaxKeep, as
// large as a request body may be): a larger answer is not kept and its key is released.
const MaxKeptAnswerBytes = 1 << 20

// sealOverhead is what sealing adds to a kept body (AES-256-GCM's tag; the nonce is apart).
const sealOverhead = 16

func sealAAD(principal, key string) string { return "idempotency:" + principal + ":" + key }

// keptWindow: the principal's counters a claim sums, the current UTC hour and the 24 before it,
// so that a key is counted for 24 to 25 hours (at least as long as its answer is kept).
const keptWindow = `hour >= date_trunc('hour', now(), 'UTC') - interval '24 hours'`

// lockSQL takes the principal's claim lock until the claim commits (Claim).
const lockSQL = `SELECT pg_advisory_xact_lock(hashtextextended('payledger idempotent kept:' || $1::text, 0))`

// claimSQL takes (principal, key) as Claim says, unless the key is new (or expired) and the
// principal's counters are at the bound; a new key taken is counted in the current hour with
// the bytes reserved for its answer ($8), and the principal's counters older than the window are
// deleted. A takeover of a dead instance's claim keeps the claim's creation time and counts
// nothing: the key and its reservation were counted, in that hour, by the claim it takes over
// (before, the takeover counted the key a second time). It returns whether the key was taken,
// whether it was a takeover, whether there was room, and when the oldest counted hour leaves the
// window.
const claimSQL = `WITH used AS (
		SELECT coalesce(sum(answers), 0) < $6 AND coalesce(sum(bytes), 0) < $7 AS room,
			min(hour) FILTER (WHERE answers > 0 OR bytes > 0) + interval '25 hours' AS reset
		FROM idempotent_kept WHERE principal = $1 AND ` + keptWindow + `),
	claimed AS (
		INSERT INTO idempotent_responses (principal, key, request_hash, locked_until)
		SELECT $1, $2, $3, now() + make_interval(secs => $4) FROM used
		WHERE used.room OR EXISTS (SELECT 1 FROM idempotent_responses WHERE principal = $1 AND key = $2)
		ON CONFLICT (principal, key) DO UPDATE SET request_hash = EXCLUDED.request_hash, done = false, status = NULL,
			content_type = NULL, body_nonce = NULL, body_sealed = NULL, locked_until = EXCLUDED.locked_until,
			created_at = CASE WHEN idempotent_responses.created_at < now() - make_interval(secs => $5) THEN now()
				ELSE idempotent_responses.created_at END
		WHERE (idempotent_responses.created_at < now() - make_interval(secs => $5) AND (SELECT room FROM used))
		   OR (NOT idempotent_responses.done AND idempotent_responses.locked_until < now() AND idempotent_responses.request_hash = $3
			AND idempotent_responses.created_at >= now() - make_interval(secs => $5))
		RETURNING principal, created_at = now() AS fresh),
	counted AS (
		INSERT INTO idempotent_kept (principal, hour, answers, bytes) SELECT principal, date_trunc('hour', now(), 'UTC'), 1, $8 FROM claimed WHERE fresh
		ON CONFLICT (principal, hour) DO UPDATE SET answers = idempotent_kept.answers + 1, bytes = idempotent_kept.bytes + EXCLUDED.bytes),
	aged AS (
		DELETE FROM idempotent_kept WHERE principal = $1 AND NOT (` + keptWindow + `))
	SELECT (SELECT count(*) FROM claimed) = 1, coalesce((SELECT NOT fresh FROM claimed), false), room, reset FROM used`

// Claim takes (principal, key) for a request with hash, for lock: a new key, one older than the
// TTL, or one whose holder with the same hash stopped answering before lock ran out. A new or
// expired key is refused (Full) while the principal is at the bound (MaxKeptAnswers).
func (s *IdempotentResponses) Claim(ctx context.Context, principal, key, hash string, lock time.Duration) (Kept, error) {
	taken, takenOver, room, reset, err := s.claim(ctx, principal, key, hash, lock)
	if err != nil {
		return Kept{}, fmt.Errorf("claim idempotency key: %w", err)
	}
	if taken {
		// Best effort: a purge that fails leaves expired keys for the next claim's.
		_ = PurgeExpiredKeys(ctx, s.pool)
		return Kept{Run: true, TakenOver: takenOver}, nil
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
		if soon, err := s.fullOfRunning(ctx, principal, lock); err == nil && !soon.IsZero() {
			k.ResetAt = soon // best effort: on an error the later resetAt stands
		}
		return k, nil
	}
	return Kept{Running: true}, nil // released meanwhile: the caller claims again
}

// fullOfRunning tells a claim refused at the bound whether the reservations of the principal's
// requests running now are what fills it: then room comes back as they finish, within lock at
// most, and not when the oldest counted hour leaves the window (up to 25 h). It returns when to
// try again (a second from now), or zero when the bound is reached without them. The order
// path's bindings (never done, held for the TTL) are not requests running.
func (s *IdempotentResponses) fullOfRunning(ctx context.Context, principal string, lock time.Duration) (time.Time, error) {
	var soon *time.Time
	err := s.pool.QueryRow(ctx, `WITH running AS (
			SELECT count(*) AS n FROM idempotent_responses WHERE principal = $1 AND NOT done
				AND locked_until BETWEEN now() AND now() + make_interval(secs => $2))
		SELECT CASE WHEN coalesce(sum(answers), 0) < $3 AND coalesce(sum(bytes), 0) - (SELECT n FROM running) * $4 < $5
			THEN now() + interval '1 second' END
		FROM idempotent_kept WHERE principal = $1 AND `+keptWindow, principal, lock.Seconds(), s.maxAnswers, s.reserve, s.maxBytes).Scan(&soon)
	if err != nil || soon == nil {
		return time.Time{}, err
	}
	return *soon, nil
}

// claim runs the claim statement behind the principal's lock, held to its commit: a statement
// reads the counters as they were when it began, so claims that raced each counted the others'
// as absent and as many as ran at once passed the bound. The lock and the claim go as one
// pipelined batch (one round trip, one implicit transaction ended by the batch's one Sync), so
// the claim statement begins after the lock is granted and sees every earlier claim committed;
// as BEGIN, lock, claim, COMMIT each waited for its answer, the lock cost three round trips.
func (s *IdempotentResponses) claim(ctx context.Context, principal, key, hash string, lock time.Duration) (taken, takenOver, room bool, reset *time.Time, err error) {
	b := &pgx.Batch{}
	b.Queue(lockSQL, principal)
	b.Queue(claimSQL, principal, key, hash, lock.Seconds(), IdempotencyTTL, s.maxAnswers, s.maxBytes, s.reserve).
		QueryRow(func(row pgx.Row) error { return row.Scan(&taken, &takenOver, &room, &reset) })
	err = s.pool.SendBatch(ctx, b).Close()
	return taken, takenOver, room, reset, err
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
	// The answer's bytes replace the claim's reservation in the hour its key was claimed in
	// (Claim's bound); never below zero, as for a claim made before reservations.
	_, err = s.pool.Exec(ctx, `WITH kept AS (
			UPDATE idempotent_responses SET done = true, status = $3, content_type = $4, body_nonce = $5, body_sealed = $6
			WHERE principal = $1 AND key = $2 AND NOT done RETURNING principal, created_at)
		INSERT INTO idempotent_kept (principal, hour, bytes) SELECT principal, date_trunc('hour', created_at, 'UTC'), greatest($7::bigint - $8, 0) FROM kept
		ON CONFLICT (principal, hour) DO UPDATE SET bytes = greatest(idempotent_kept.bytes + $7::bigint - $8, 0)`,
		principal, key, status, contentType, nonce, sealed, len(sealed), s.reserve)
	if err != nil {
		return fmt.Errorf("keep idempotent answer: %w", err)
	}
	return nil
}

// Renew holds (principal, key) for lock from now while its request still runs (not done), so a
// request that outlasts the lock is not taken over by a retry; a lock never shrinks (the receipt
// issuer's mirror rows hold theirs for the key's life). A row done or gone is left alone.
func (s *IdempotentResponses) Renew(ctx context.Context, principal, key string, lock time.Duration) error {
	_, err := s.pool.Exec(ctx, `UPDATE idempotent_responses SET locked_until = greatest(locked_until, now() + make_interval(secs => $3))
		WHERE principal = $1 AND key = $2 AND NOT done`, principal, key, lock.Seconds())
	if err != nil {
		return fmt.Errorf("renew idempotency key: %w", err)
	}
	return nil
}

// Supersede replaces the kept answer of (principal, key) with another: one that must no longer
// be given (the API key it created was revoked since), so that the store does not keep it either.
// The count of bytes follows: the replaced answer's bytes are given back and the new one's
// counted (before, the replaced answer stayed counted for the rest of the window).
func (s *IdempotentResponses) Supersede(ctx context.Context, principal, key string, status int, contentType string, body []byte) error {
	nonce, sealed, err := s.keys.Seal(sealAAD(principal, key), string(body))
	if err != nil {
		return err
	}
	_, err = s.pool.Exec(ctx, `WITH was AS (
			SELECT principal, key, created_at, octet_length(body_sealed) AS n FROM idempotent_responses
			WHERE principal = $1 AND key = $2 AND done FOR UPDATE),
		replaced AS (
			UPDATE idempotent_responses r SET status = $3, content_type = $4, body_nonce = $5, body_sealed = $6
			FROM was WHERE r.principal = was.principal AND r.key = was.key RETURNING was.principal, was.created_at, was.n)
		UPDATE idempotent_kept k SET bytes = greatest(k.bytes - coalesce(replaced.n, 0) + $7, 0) FROM replaced
		WHERE k.principal = replaced.principal AND k.hour = date_trunc('hour', replaced.created_at, 'UTC')`,
		principal, key, status, contentType, nonce, sealed, len(sealed))
	if err != nil {
		return fmt.Errorf("replace idempotent answer: %w", err)
	}
	return nil
}

// Release forgets a claim whose request kept no answer (a server error): a retry runs again, and
// the claim no longer counts against the principal's bound (it keeps nothing), nor does its
// reservation of bytes.
func (s *IdempotentResponses) Release(ctx context.Context, principal, key string) error {
	_, err := s.pool.Exec(ctx, `WITH gone AS (
			DELETE FROM idempotent_responses WHERE principal = $1 AND key = $2 AND NOT done RETURNING principal, created_at)
		UPDATE idempotent_kept k SET answers = greatest(k.answers - 1, 0), bytes = greatest(k.bytes - $3, 0) FROM gone
		WHERE k.principal = gone.principal AND k.hour = date_trunc('hour', gone.created_at, 'UTC')`, principal, key, s.reserve)
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
