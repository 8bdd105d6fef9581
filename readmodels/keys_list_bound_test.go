package readmodels

import (
	"context"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/payledger/payledger/migrations/pgtest"
)

// TestKeyListBoundsRevokedKeys (stop 62): revoked keys stayed listed for ever, so a create/revoke
// loop grew a merchant's key list (and the dashboard's settings page) without bound. A listing
// now holds the live keys and only the MaxListedRevokedKeys most recently revoked, oldest first;
// the older revoked rows stay in the table (the audit trail).
func TestKeyListBoundsRevokedKeys(t *testing.T) {
	t.Parallel()
	pool := pgtest.Pool(t)
	keys, ctx := NewKeys(pool), context.Background()
	wallet := "0x" + strings.Repeat("a", 40)
	live, _, err := keys.Create(ctx, wallet, "live", []string{"orders:create"})
	if err != nil {
		t.Fatal(err)
	}
	const revoked = MaxListedRevokedKeys + 7
	var ids []uuid.UUID
	for i := range revoked {
		_, k, err := keys.Create(ctx, wallet, "loop", []string{})
		if err != nil {
			t.Fatal(err)
		}
		// Revoked in creation order, each a second after the previous one.
		if _, err := pool.Exec(ctx, `UPDATE api_keys SET revoked_at = now() + make_interval(secs => $2) WHERE id = $1`, k.ID, i); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, k.ID)
	}
	list, err := keys.List(ctx, wallet)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1+MaxListedRevokedKeys {
		t.Fatalf("listed %d keys, want the live one and %d revoked", len(list), MaxListedRevokedKeys)
	}
	if list[0].RevokedAt != nil || list[0].Prefix != live[:len(KeyPrefix)+6] {
		t.Fatalf("first listed %+v, want the live key (created first)", list[0])
	}
	for i, k := range list[1:] {
		if want := ids[revoked-MaxListedRevokedKeys+i]; k.ID != want || k.RevokedAt == nil {
			t.Fatalf("listed %d: %s, want %s (the newest revoked, oldest first)", i+1, k.ID, want)
		}
	}
	var rows int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM api_keys WHERE wallet = $1`, wallet).Scan(&rows); err != nil || rows != 1+revoked {
		t.Fatalf("%d rows (%v): the revoked keys' rows must stay", rows, err)
	}
}
