package transport

import (
	"testing"
	"time"

	"github.com/google/uuid"
)

// A key's lookup that began before this instance revoked the key may come back with the key's
// confirmation, read before the revocation committed. Remembered, that key was then accepted
// while the datastore was down, for up to KEY_CACHE_TTL after its revocation. A lookup that
// began before a revocation is not remembered; one that began after is (the auth review, stop 68).
func TestAKeyRevokedDuringItsLookupIsNotRemembered(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	l := newLastKnown(time.Minute, func() time.Time { return now })
	id := uuid.New()
	p := Principal{Wallet: "0xm", KeyID: id}

	before := l.generation() // the lookup begins
	l.revoked(id)            // DELETE /api/admin/keys/{id} commits meanwhile
	l.remember("plk_revoked", p, before)
	if _, ok := l.key("plk_revoked"); ok {
		t.Fatal("a key revoked while its lookup was in flight was remembered for degraded mode")
	}

	other := Principal{Wallet: "0xm", KeyID: uuid.New()}
	l.remember("plk_live", other, l.generation())
	if got, ok := l.key("plk_live"); !ok || got.KeyID != other.KeyID {
		t.Fatal("a key confirmed after the revocation was not remembered")
	}
}
