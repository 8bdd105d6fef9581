package readmodels

import (
	"context"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/payledger/payledger/migrations/pgtest"
)

// TestRevokeAnnouncesOnlyAKeyItRevokes: a revocation that revoked nothing (another wallet's key,
// an unknown id, a key revoked already) still sent the revocation NOTIFY, which empties every
// instance's key cache and has every open stream of every instance read its credential again.
// Any signed-in wallet (any wallet can sign in) could send that at its per-wallet limit with
// random ids. Only a key that this call revokes is announced now; the answers are unchanged.
func TestRevokeAnnouncesOnlyAKeyItRevokes(t *testing.T) {
	t.Parallel()
	pool := pgtest.Pool(t)
	keys, ctx := NewKeys(pool), context.Background()
	owner, other := "0x"+strings.Repeat("a", 40), "0x"+strings.Repeat("b", 40)
	_, key, err := keys.Create(ctx, owner, "live", []string{"orders:create"})
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	for _, ch := range []string{RevokedChannel, RevokedKeyChannel} {
		if _, err := conn.Exec(ctx, "LISTEN "+ch); err != nil {
			t.Fatal(err)
		}
	}
	// next is the next notification's channel and payload. Notifications arrive in commit order,
	// so a marker sent after a revocation is the first one heard when that revocation sent none.
	next := func() string {
		t.Helper()
		n, err := conn.Conn().WaitForNotification(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return n.Channel + " " + n.Payload
	}
	marker := func(name string) string {
		t.Helper()
		if _, err := pool.Exec(ctx, `SELECT pg_notify($1, $2)`, RevokedChannel, name); err != nil {
			t.Fatal(err)
		}
		return RevokedChannel + " " + name
	}
	if err := keys.Revoke(ctx, other, key.ID); err != ErrNotFound {
		t.Fatalf("another wallet revoking the key: %v, want ErrNotFound", err)
	}
	if want, got := marker("after another wallet"), next(); got != want {
		t.Fatalf("another wallet's revocation was announced: heard %q first, want %q", got, want)
	}
	if err := keys.Revoke(ctx, owner, uuid.New()); err != ErrNotFound {
		t.Fatalf("an unknown id: %v, want ErrNotFound", err)
	}
	if want, got := marker("after an unknown id"), next(); got != want {
		t.Fatalf("an unknown id's revocation was announced: heard %q first, want %q", got, want)
	}
	// The owner's revocation is announced on both channels, once.
	if err := keys.Revoke(ctx, owner, key.ID); err != nil {
		t.Fatal(err)
	}
	heard := map[string]bool{next(): true, next(): true}
	if !heard[RevokedChannel+" "] || !heard[RevokedKeyChannel+" "+key.ID.String()] {
		t.Fatalf("the owner's revocation announced %v", heard)
	}
	// Revoking it again answers as before (nothing to find is not an error) and announces nothing.
	if err := keys.Revoke(ctx, owner, key.ID); err != nil {
		t.Fatalf("revoking a revoked key again: %v", err)
	}
	if want, got := marker("after a second revocation"), next(); got != want {
		t.Fatalf("a second revocation was announced again: heard %q first, want %q", got, want)
	}
}
