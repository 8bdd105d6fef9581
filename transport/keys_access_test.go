package transport

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/payledger/payledger/readmodels"
)

// TestLiveKeysPerMerchantAreBounded: a session created keys without end (each a row that every
// listing of the merchant's keys returns, all at once); concurrent creates must not pass the
// bound either. A revoked key frees its place.
func TestLiveKeysPerMerchantAreBounded(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(false)
	for range readmodels.MaxLiveKeys - 6 { // e.merchant made one
		e.key(m.wallet, "receipts:read")
	}
	create := func() *httptest.ResponseRecorder {
		return e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/admin/keys", `{"name":"k","scopes":["receipts:read"]}`)
	}
	var wg sync.WaitGroup
	codes := make(chan int, 12)
	for range 12 {
		wg.Go(func() { codes <- create().Code })
	}
	wg.Wait()
	close(codes)
	created := 0
	for code := range codes {
		if code == http.StatusCreated {
			created++
		} else if code != http.StatusBadRequest {
			t.Fatalf("concurrent create: %d", code)
		}
	}
	if created != 5 {
		t.Fatalf("%d keys created concurrently with room for 5", created)
	}
	rec := create()
	if rec.Code != http.StatusBadRequest || decode(t, rec)["error"] != "invalid_input" {
		t.Fatalf("a key past the bound: %d %s", rec.Code, rec.Body)
	}
	var live int
	if err := e.pool.QueryRow(context.Background(), `SELECT count(*) FROM api_keys WHERE wallet = $1 AND revoked_at IS NULL`, m.wallet).Scan(&live); err != nil || live != readmodels.MaxLiveKeys {
		t.Fatalf("%d live keys (%v), want %d", live, err, readmodels.MaxLiveKeys)
	}
	keys := decode(t, e.do(req{method: http.MethodGet, path: "/api/admin/keys", cookies: m.cookies}))["keys"].([]any)
	id := keys[0].(map[string]any)["id"].(string)
	if rec := e.adminCall(m.cookies, m.csrf, http.MethodDelete, "/api/admin/keys/"+id, ""); rec.Code != http.StatusOK {
		t.Fatalf("revoke: %d", rec.Code)
	}
	if rec := create(); rec.Code != http.StatusCreated {
		t.Fatalf("a key after one was revoked: %d %s", rec.Code, rec.Body)
	}
}
