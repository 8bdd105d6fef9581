package transport

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/uuid"

	"github.com/payledger/payledger/readmodels"
)

// TestIdempotencyKeyDoesNotKeepTheLiveKeyBound: a key creation refused at the merchant's bound
// ("at most 50 live API keys; revoke one first", 400) was kept and replayed for 24 h, so the
// retry the answer asks for (after revoking one, under the same Idempotency-Key) got the same
// 400. Such a refusal is not kept now; a validation 400 still is.
func TestIdempotencyKeyDoesNotKeepTheLiveKeyBound(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(false)
	ctx := context.Background()
	var last readmodels.APIKey
	for { // up to the bound, whatever keys the merchant has already
		_, k, err := e.keys.Create(ctx, m.wallet, "bulk", []string{"receipts:read"})
		if errors.Is(err, readmodels.ErrTooManyKeys) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		last = k
	}
	create := func(key, body string) *httptest.ResponseRecorder {
		return e.do(req{method: http.MethodPost, path: "/api/admin/keys", body: body,
			cookies: m.cookies, header: map[string]string{CSRFHeader: m.csrf, "Idempotency-Key": key}})
	}
	const body = `{"name":"ci","scopes":["receipts:read"]}`
	if rec := create("provision", body); rec.Code != 400 {
		t.Fatalf("at the bound: %d %s", rec.Code, rec.Body)
	}
	if err := e.keys.Revoke(ctx, m.wallet, last.ID); err != nil {
		t.Fatal(err)
	}
	made := create("provision", body)
	if made.Code != 201 || made.Header().Get("Idempotent-Replayed") != "" {
		t.Fatalf("retry after revoking one: %d %s (replayed %q)", made.Code, made.Body, made.Header().Get("Idempotent-Replayed"))
	}
	// Below the bound a refusal of the request itself is kept, as before.
	if err := e.keys.Revoke(ctx, m.wallet, uuid.MustParse(decode(t, made)["apiKey"].(map[string]any)["id"].(string))); err != nil {
		t.Fatal(err)
	}
	bad := `{"name":"ci","scopes":["nope"]}`
	first, again := create("bad", bad), create("bad", bad)
	if first.Code != 400 || again.Code != 400 || again.Header().Get("Idempotent-Replayed") != "true" {
		t.Fatalf("a validation refusal: %d, then %d replayed %q", first.Code, again.Code, again.Header().Get("Idempotent-Replayed"))
	}
}

// TestIdempotencyKeyDoesNotKeepTheEndpointBound: as for keys, at MaxEndpoints live endpoints.
func TestIdempotencyKeyDoesNotKeepTheEndpointBound(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(d *testDeps) { d.Config.Production = false })
	m := e.merchant(false)
	var id string
	for range readmodels.MaxEndpoints {
		rec := e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/webhooks/endpoints", `{"url":"http://localhost:9/hook","events":["*"]}`)
		if rec.Code != 201 {
			t.Fatalf("create: %d %s", rec.Code, rec.Body)
		}
		id = decode(t, rec)["endpoint"].(map[string]any)["id"].(string)
	}
	create := func() *httptest.ResponseRecorder {
		return e.do(req{method: http.MethodPost, path: "/api/webhooks/endpoints", body: `{"url":"http://localhost:9/other","events":["*"]}`,
			cookies: m.cookies, header: map[string]string{CSRFHeader: m.csrf, "Idempotency-Key": "provision-hook"}})
	}
	if rec := create(); rec.Code != 400 {
		t.Fatalf("at the bound: %d %s", rec.Code, rec.Body)
	}
	if rec := e.do(req{method: http.MethodDelete, path: "/api/webhooks/endpoints/" + id, cookies: m.cookies,
		header: map[string]string{CSRFHeader: m.csrf}}); rec.Code/100 != 2 {
		t.Fatalf("delete: %d %s", rec.Code, rec.Body)
	}
	if rec := create(); rec.Code != 201 {
		t.Fatalf("retry after deleting one: %d %s", rec.Code, rec.Body)
	}
}
