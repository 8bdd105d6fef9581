package readmodels

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payledger/payledger/internal/secrets"
	"github.com/payledger/payledger/migrations/pgtest"
)

// keptStore is a middleware store on a database of its own, bounded at answers and bytes.
func keptStore(t *testing.T, answers int, bytesBound int64) (*IdempotentResponses, *pgxpool.Pool) {
	t.Helper()
	pool := pgtest.PoolFor(t, pgtest.URL(t))
	keys, err := secrets.NewWebhookKeys(pool, bytes.Repeat([]byte{5}, 32))
	if err != nil {
		t.Fatal(err)
	}
	return NewIdempotentResponses(pool, keys).WithBound(answers, bytesBound), pool
}

// keptCounted is what the principal's counters hold in the window: keys and bytes.
func keptCounted(t *testing.T, pool *pgxpool.Pool, principal string) (answers, bytes int64) {
	t.Helper()
	err := pool.QueryRow(context.Background(), `SELECT coalesce(sum(answers), 0), coalesce(sum(bytes), 0) FROM idempotent_kept
		WHERE principal = $1 AND `+keptWindow, principal).Scan(&answers, &bytes)
	if err != nil {
		t.Fatal(err)
	}
	return answers, bytes
}

// The bytes half of the bound holds for requests in flight: forty new keys of one principal
// claimed at once on a store bounded at 3 MiB (and 1,000 answers), each answering 1 MiB, keep
// at most the bound and one answer. Before, an answer's bytes were counted only when kept, after
// every claim had passed the check: all forty ran and kept 40 MiB.
func TestReview70IdempotencyBytesBoundHoldsForRacingClaims(t *testing.T) {
	t.Parallel()
	const bound, racers = 3 << 20, 40
	mw, pool := keptStore(t, 1000, bound)
	ctx, answer := context.Background(), bytes.Repeat([]byte("x"), MaxKeptAnswerBytes)
	var wg sync.WaitGroup
	start := make(chan struct{})
	results, errs := make(chan Kept, racers), make(chan error, racers)
	for i := range racers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			key := fmt.Sprintf("key-%d", i)
			k, err := mw.Claim(ctx, "wallet:0xbytes", key, "h", time.Minute)
			if err == nil && k.Run {
				err = mw.Finish(ctx, "wallet:0xbytes", key, 200, "application/json", answer)
			}
			if err != nil {
				errs <- err
				return
			}
			results <- k
		}()
	}
	close(start)
	wg.Wait()
	close(results)
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	ran, full := 0, 0
	for k := range results {
		switch {
		case k.Run:
			ran++
		case k.Full:
			full++
		}
	}
	_, kept := keptCounted(t, pool, "wallet:0xbytes")
	if ran != 3 || full != racers-3 || kept > bound+MaxKeptAnswerBytes+sealOverhead {
		t.Fatalf("%d racing keys of 1 MiB answers at a bound of 3 MiB: %d ran, %d refused, %d bytes counted (want 3, %d, at most %d)",
			racers, ran, full, kept, racers-3, bound+MaxKeptAnswerBytes+sealOverhead)
	}
}

// A claim counts its reservation until its answer is kept; the kept answer's sealed bytes then
// replace it, and a released claim gives back both its key and its reservation.
func TestReview70IdempotencyClaimReservesBytes(t *testing.T) {
	t.Parallel()
	mw, pool := keptStore(t, 100, MaxKeptBytes)
	ctx, p, reserve := context.Background(), "wallet:0xreserve", int64(MaxKeptAnswerBytes+sealOverhead)
	for _, key := range []string{"kept", "released"} {
		if k, err := mw.Claim(ctx, p, key, "h", time.Minute); err != nil || !k.Run {
			t.Fatalf("claim %s: %+v %v", key, k, err)
		}
	}
	if n, b := keptCounted(t, pool, p); n != 2 || b != 2*reserve {
		t.Fatalf("two claims running: %d keys, %d bytes counted (want 2, %d)", n, b, 2*reserve)
	}
	if err := mw.Finish(ctx, p, "kept", 200, "application/json", []byte(`{"ok":true}`)); err != nil {
		t.Fatal(err)
	}
	if err := mw.Release(ctx, p, "released"); err != nil {
		t.Fatal(err)
	}
	if n, b := keptCounted(t, pool, p); n != 1 || b != 11+sealOverhead {
		t.Fatalf("one answer of 11 bytes kept, one claim released: %d keys, %d bytes counted (want 1, %d)", n, b, 11+sealOverhead)
	}
}

// The takeover of a dead instance's claim counts nothing: the claim it takes over counted the key
// and its reservation (before, the key was counted twice). The takeover keeps the claim's
// creation time, so that the count and the answer's bytes stay in one hour. A claim left older
// than the TTL is not taken over at the bound: it is an expired key, refused like a new one.
func TestReview70IdempotencyTakeoverCountsTheKeyOnce(t *testing.T) {
	t.Parallel()
	mw, pool := keptStore(t, 1, MaxKeptBytes)
	ctx, p := context.Background(), "wallet:0xtakeover"
	if k, err := mw.Claim(ctx, p, "k", "h", time.Minute); err != nil || !k.Run || k.TakenOver {
		t.Fatalf("claim: %+v %v (want Run, not TakenOver)", k, err)
	}
	// The claim is moved 2 minutes back, and its count with it: within an hour's first 2 minutes
	// its count stayed in this hour while the moved claim (and its Finish) belonged to the last.
	if _, err := pool.Exec(ctx, `WITH moved AS (
			UPDATE idempotent_responses SET locked_until = now() - interval '1 second', created_at = now() - interval '2 minutes'
			WHERE principal = $1 RETURNING principal)
		UPDATE idempotent_kept SET hour = date_trunc('hour', now() - interval '2 minutes', 'UTC') WHERE principal IN (SELECT principal FROM moved)`, p); err != nil {
		t.Fatal(err)
	}
	if k, err := mw.Claim(ctx, p, "k", "h", time.Minute); err != nil || !k.Run || !k.TakenOver {
		t.Fatalf("takeover of a dead claim at the bound: %+v %v (want Run and TakenOver)", k, err)
	}
	if n, b := keptCounted(t, pool, p); n != 1 || b != MaxKeptAnswerBytes+sealOverhead {
		t.Fatalf("a key taken over: %d keys, %d bytes counted (want 1, %d)", n, b, MaxKeptAnswerBytes+sealOverhead)
	}
	var age time.Duration
	if err := pool.QueryRow(ctx, `SELECT extract(epoch FROM now() - created_at)::bigint * 1000000000 FROM idempotent_responses WHERE principal = $1`, p).
		Scan(&age); err != nil || age < time.Minute {
		t.Fatalf("the taken over claim's age %v %v (want its first claim's, 2 minutes)", age, err)
	}
	if err := mw.Finish(ctx, p, "k", 200, "application/json", []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	if n, b := keptCounted(t, pool, p); n != 1 || b != 2+sealOverhead {
		t.Fatalf("the taken over key kept: %d keys, %d bytes counted (want 1, %d)", n, b, 2+sealOverhead)
	}
	// A dead claim older than the TTL, at the bound: an expired key, refused.
	if _, err := pool.Exec(ctx, `UPDATE idempotent_responses SET done = false, locked_until = now() - interval '1 second',
		created_at = now() - interval '25 hours' WHERE principal = $1`, p); err != nil {
		t.Fatal(err)
	}
	if k, err := mw.Claim(ctx, p, "k", "h", time.Minute); err != nil || !k.Full {
		t.Fatalf("an expired dead claim at the bound: %+v %v (want Full)", k, err)
	}
}

// Supersede gives back the bytes of the answer it replaces (a revoked key's secret replaced by a
// short 409) and counts the new one's; before, the replaced answer stayed counted.
func TestReview70IdempotencySupersedeGivesBackTheBytes(t *testing.T) {
	t.Parallel()
	mw, pool := keptStore(t, 100, MaxKeptBytes)
	ctx, p := context.Background(), "wallet:0xsupersede"
	if k, err := mw.Claim(ctx, p, "k", "h", time.Minute); err != nil || !k.Run {
		t.Fatalf("claim: %+v %v", k, err)
	}
	if err := mw.Finish(ctx, p, "k", 201, "application/json", bytes.Repeat([]byte("s"), 500)); err != nil {
		t.Fatal(err)
	}
	if err := mw.Supersede(ctx, p, "k", 409, "application/json", bytes.Repeat([]byte("r"), 50)); err != nil {
		t.Fatal(err)
	}
	if n, b := keptCounted(t, pool, p); n != 1 || b != 50+sealOverhead {
		t.Fatalf("a 500-byte answer replaced by 50 bytes: %d keys, %d bytes counted (want 1, %d)", n, b, 50+sealOverhead)
	}
	if k, err := mw.Claim(ctx, p, "k", "h", time.Minute); err != nil || !k.Done || k.Status != 409 || len(k.Body) != 50 {
		t.Fatalf("the replaced answer: %+v %v", k, err)
	}
}

// A claim refused because the requests running now hold the bytes (their reservations) is told
// to try again in a second, when one of them may have finished; refused because kept answers
// fill the bound, it is told when the oldest counted hour leaves (about 25 h).
func TestReview70IdempotencyFullOfRunningRequestsResetsSoon(t *testing.T) {
	t.Parallel()
	reserve := int64(MaxKeptAnswerBytes + sealOverhead)
	mw, _ := keptStore(t, 100, 2*reserve)
	ctx, p := context.Background(), "wallet:0xrunning"
	for _, key := range []string{"a", "b"} {
		if k, err := mw.Claim(ctx, p, key, "h", time.Minute); err != nil || !k.Run {
			t.Fatalf("claim %s: %+v %v", key, k, err)
		}
	}
	k, err := mw.Claim(ctx, p, "c", "h", time.Minute)
	if err != nil || !k.Full || k.ResetAt.After(time.Now().Add(time.Minute)) {
		t.Fatalf("a key while two running requests hold the bound: %+v %v (want Full, resetAt within a minute)", k, err)
	}
	for _, key := range []string{"a", "b"} {
		if err := mw.Finish(ctx, p, key, 200, "application/json", bytes.Repeat([]byte("x"), MaxKeptAnswerBytes)); err != nil {
			t.Fatal(err)
		}
	}
	k, err = mw.Claim(ctx, p, "c", "h", time.Minute)
	if err != nil || !k.Full || k.ResetAt.Before(time.Now().Add(23*time.Hour)) {
		t.Fatalf("a key while kept answers fill the bound: %+v %v (want Full, resetAt in about 25 h)", k, err)
	}
}
