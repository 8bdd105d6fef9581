package readmodels

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/payledger/payledger/migrations/pgtest"
)

// TestASessionIssuedAfterACutoffIsEndedByTheNextLogoutAllOnly: a session checked at
// AfterCutoff(the cutoff it read) is not ended by the logout-alls before that read, and is ended
// by the next one, even when the next one's issuedThrough (its instance's clock) is before the
// cutoff already in force. Before, RevokeAll kept the greater of the two, left the cutoff where
// it was, and the session outlived the logout-all.
func TestASessionIssuedAfterACutoffIsEndedByTheNextLogoutAllOnly(t *testing.T) {
	t.Parallel()
	store, ctx := NewSessions(pgtest.Pool(t)), context.Background()
	wallet := "0x" + strings.Repeat("d", 40)
	t0 := time.Now().UTC().Truncate(time.Second)
	const ttl = 24 * time.Hour
	revokedAfter := func(cut time.Time) bool {
		t.Helper()
		revoked, err := store.Revoked(ctx, "tok", wallet, AfterCutoff(cut))
		if err != nil {
			t.Fatal(err)
		}
		return revoked
	}
	cutoff := func() time.Time {
		t.Helper()
		cut, err := store.Cutoff(ctx, wallet)
		if err != nil {
			t.Fatal(err)
		}
		return cut
	}

	none := cutoff()
	if !none.Equal(NoCutoff) || revokedAfter(none) {
		t.Fatalf("a wallet without a logout-all: cutoff %v (want NoCutoff), revoked %v", none, revokedAfter(none))
	}
	if err := store.RevokeAll(ctx, wallet, t0, ttl); err != nil {
		t.Fatal(err)
	}
	if !revokedAfter(none) {
		t.Fatal("a session that read no cutoff outlived the wallet's first logout-all")
	}
	first := cutoff()
	if !first.Equal(t0) || revokedAfter(first) {
		t.Fatalf("after a logout-all at %v: cutoff %v, a session issued after it revoked %v", t0, first, revokedAfter(first))
	}
	// A logout-all whose clock is 10 s behind the cutoff in force.
	if err := store.RevokeAll(ctx, wallet, t0.Add(-10*time.Second), ttl); err != nil {
		t.Fatal(err)
	}
	if !revokedAfter(first) {
		t.Fatal("a session issued after the first cutoff outlived a logout-all made on a slower clock")
	}
	if second := cutoff(); !second.After(first) || revokedAfter(second) {
		t.Fatalf("the second cutoff %v is not past the first %v, or ends the sessions issued after it", second, first)
	}
}
