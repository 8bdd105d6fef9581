package transport

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/readmodels"
)

// TestDegradedModeForgetsKeysRevokedElsewhere: a key revoked through another instance (or
// `payledger keys revoke`) was announced here, yet while the datastore was down this instance
// still accepted it for up to KEY_CACHE_TTL from its last use, although docs/security.md
// promises that exposure only to an instance that neither did the revocation nor heard of it.
// Each revocation now announces its key's id, which every instance forgets; other keys stay.
func TestDegradedModeForgetsKeysRevokedElsewhere(t *testing.T) {
	t.Parallel()
	var keys *cutKeys
	e := newEnv(t, func(d *testDeps) {
		keys = &cutKeys{KeyStore: d.Keys}
		d.Keys = keys
		d.Config.KeyCacheTTL = time.Hour
	})
	m := e.merchant(false)
	ping := func(key string) int {
		return e.do(req{method: http.MethodGet, path: "/api/status/ping", header: map[string]string{"Ocp-Apim-Subscription-Key": key}}).Code
	}
	leaked, lk, err := e.keys.Create(context.Background(), m.wallet, "leaked", Scopes)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{m.key, leaked} {
		if code := ping(k); code != http.StatusOK {
			t.Fatalf("ping before the revocation: %d", code)
		}
	}
	wait.Until(t, "the instance to listen for revocations", 10*time.Second, func() bool { _, on := e.srv.revocations.Wait(); return on })
	keys.cut.Store(true)
	if code := ping(leaked); code != http.StatusOK {
		t.Fatalf("the key while the datastore is down, before its revocation: %d", code)
	}
	// Revoked as another instance or the command line does (not through this server's handler),
	// while this instance cannot reach the datastore for keys.
	if err := readmodels.NewKeys(e.pool).Revoke(context.Background(), m.wallet, lk.ID); err != nil {
		t.Fatal(err)
	}
	wait.Until(t, "the key revoked elsewhere, announced here, to be refused while the datastore is down", 10*time.Second,
		func() bool { return ping(leaked) != http.StatusOK })
	if code := ping(m.key); code != http.StatusOK {
		t.Fatalf("another key of the merchant while the datastore is down: %d", code)
	}
}
