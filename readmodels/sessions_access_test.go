package readmodels

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/payledger/payledger/migrations/pgtest"
)

// TestExpiredSessionCutoffsAreDeleted: a logout-all kept its wallet's cutoff for ever, although
// every session it ends has expired a day later (logged-out tokens were already deleted then);
// anyone can sign in with a new wallet, so the table grew without bound. A cutoff past its
// expiry is deleted by the next logout-all; one still in force is kept and still ends sessions.
func TestExpiredSessionCutoffsAreDeleted(t *testing.T) {
	t.Parallel()
	store, ctx := NewSessions(pgtest.Pool(t)), context.Background()
	wallet := func(b string) string { return "0x" + strings.Repeat(b, 40) }
	t0 := time.Now().UTC().Truncate(time.Second)
	const ttl = 24 * time.Hour
	if err := store.RevokeAll(ctx, wallet("a"), t0, ttl); err != nil {
		t.Fatal(err)
	}
	if err := store.RevokeAll(ctx, wallet("b"), t0.Add(12*time.Hour), ttl); err != nil {
		t.Fatal(err)
	}
	if err := store.RevokeAll(ctx, wallet("c"), t0.Add(ttl+time.Minute), ttl); err != nil {
		t.Fatal(err)
	}
	var left []string
	rows, err := store.pool.Query(ctx, `SELECT wallet FROM wallet_session_cutoffs ORDER BY wallet`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var w string
		if err := rows.Scan(&w); err != nil {
			t.Fatal(err)
		}
		left = append(left, w)
	}
	if rows.Err() != nil || len(left) != 2 || left[0] != wallet("b") || left[1] != wallet("c") {
		t.Fatalf("cutoffs left %v (%v), want b's (in force) and c's", left, rows.Err())
	}
	if revoked, err := store.Revoked(ctx, "tok", wallet("b"), t0.Add(time.Hour)); err != nil || !revoked {
		t.Fatalf("a session ended by a cutoff in force: revoked %v (%v)", revoked, err)
	}
}
