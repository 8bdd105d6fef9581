package transport

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// TestIdempotencyKeyOnEveryPost: three POST routes of the developer and admin APIs replay their
// first answer to the same key and body, and refuse another body with 409 conflict.
func TestIdempotencyKeyOnEveryPost(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(d *testDeps) { d.Config.Production = false })
	m := e.merchant(false)
	admin := func(path, body, key string) *httptest.ResponseRecorder {
		return e.do(req{method: http.MethodPost, path: path, body: body, cookies: m.cookies,
			header: map[string]string{CSRFHeader: m.csrf, "Idempotency-Key": key}})
	}
	dev := func(path, body, key string) *httptest.ResponseRecorder {
		return e.dev(m, http.MethodPost, path, body, "Idempotency-Key", key)
	}
	routes := []struct {
		name        string
		call        func(path, body, key string) *httptest.ResponseRecorder
		path        string
		body, other string
		table       string
	}{
		{"inventory (key)", dev, "/api/inventory", `{"sku":"latte","name":"Latte","priceUsd":4.5}`, `{"sku":"latte","name":"Latte","priceUsd":5}`, "inventory_items"},
		{"api keys (session)", admin, "/api/admin/keys", `{"name":"ci","scopes":["receipts:read"]}`, `{"name":"cd","scopes":["receipts:read"]}`, "api_keys"},
		{"webhook endpoints (session)", admin, "/api/webhooks/endpoints", `{"url":"http://localhost:9/hook","events":["*"]}`, `{"url":"http://localhost:9/other","events":["*"]}`, "webhook_endpoints"},
	}
	for _, r := range routes {
		before := e.count(r.table)
		first := r.call(r.path, r.body, "k-"+r.path)
		if first.Code/100 != 2 {
			t.Fatalf("%s: %d %s", r.name, first.Code, first.Body)
		}
		again := r.call(r.path, r.body, "k-"+r.path)
		if again.Code != first.Code || again.Body.String() != first.Body.String() || again.Header().Get("Idempotent-Replayed") != "true" {
			t.Fatalf("%s replay: %d %s, first %d %s", r.name, again.Code, again.Body, first.Code, first.Body)
		}
		if n := e.count(r.table); n != before+1 {
			t.Fatalf("%s: %d rows after a replay, want %d", r.name, n, before+1)
		}
		conflict := r.call(r.path, r.other, "k-"+r.path)
		if conflict.Code != 409 || decode(t, conflict)["error"] != "conflict" {
			t.Fatalf("%s other body: %d %s", r.name, conflict.Code, conflict.Body)
		}
		if n := e.count(r.table); n != before+1 {
			t.Fatalf("%s: the conflicting request ran", r.name)
		}
	}
	// The same key on another route is another request: conflict.
	if rec := dev("/api/inventory", `{"sku":"x","name":"X","priceUsd":1}`, "k-/api/admin/keys"); rec.Code != 409 {
		t.Fatalf("key reused on another route: %d %s", rec.Code, rec.Body)
	}
}

// TestIdempotencyKeyConcurrentDuplicatesRunOnce: duplicates sent at once make one API key, and
// every one of them gets the first answer.
func TestIdempotencyKeyConcurrentDuplicatesRunOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(false)
	before := e.count("api_keys")
	bodies := make([]string, 8)
	var wg sync.WaitGroup
	for i := range bodies {
		wg.Go(func() {
			rec := e.do(req{method: http.MethodPost, path: "/api/admin/keys", body: `{"name":"burst","scopes":["receipts:read"]}`,
				cookies: m.cookies, header: map[string]string{CSRFHeader: m.csrf, "Idempotency-Key": "burst"}})
			if rec.Code != 201 {
				t.Errorf("duplicate %d: %d %s", i, rec.Code, rec.Body)
			}
			bodies[i] = rec.Body.String()
		})
	}
	wg.Wait()
	if n := e.count("api_keys"); n != before+1 {
		t.Fatalf("%d keys made by 8 duplicates, want 1", n-before)
	}
	for _, b := range bodies {
		if b != bodies[0] {
			t.Fatalf("duplicates answered differently: %q vs %q", b, bodies[0])
		}
	}
}

// TestIdempotencyKeyHashesTheFullRequest: the stored hash covers the path with its ids and the
// query, so one key on two endpoints' test route, or on two queries, is a conflict, not a replay
// of the first answer (DESIGN 10).
func TestIdempotencyKeyHashesTheFullRequest(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(d *testDeps) { d.Config.Production = false })
	m := e.merchant(false)
	admin := func(path, body, key string) *httptest.ResponseRecorder {
		return e.do(req{method: http.MethodPost, path: path, body: body, cookies: m.cookies,
			header: map[string]string{CSRFHeader: m.csrf, "Idempotency-Key": key}})
	}
	ids := make([]string, 2)
	ids[0], _ = e.createEndpoint(m, "http://localhost:9/a", "*")
	ids[1], _ = e.createEndpoint(m, "http://localhost:9/b", "*")
	if first := admin("/api/webhooks/endpoints/"+ids[0]+"/test", "", "test-key"); first.Code/100 != 2 {
		t.Fatalf("test E1: %d %s", first.Code, first.Body)
	}
	if rec := admin("/api/webhooks/endpoints/"+ids[1]+"/test", "", "test-key"); rec.Code != 409 || decode(t, rec)["error"] != "conflict" {
		t.Fatalf("the same key on E2's test route: %d %s (want 409 conflict, not E1's answer)", rec.Code, rec.Body)
	}
	if rec := admin("/api/webhooks/endpoints/"+ids[0]+"/test?x=1", "", "test-key"); rec.Code != 409 {
		t.Fatalf("the same key with a query: %d %s", rec.Code, rec.Body)
	}
	if rec := admin("/api/webhooks/endpoints/"+ids[0]+"/test", "", "test-key"); rec.Header().Get("Idempotent-Replayed") != "true" {
		t.Fatalf("the same request again: %d %s, not replayed", rec.Code, rec.Body)
	}
}

// TestIdempotencyKeyShape: a key is 1 to 255 printable ASCII characters, else 400 invalid_input
// and nothing runs; orders and receipts (whose command binds the key) follow the same rule.
func TestIdempotencyKeyShape(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(d *testDeps) { d.Config.Production = false })
	m := e.merchant(false)
	bad := map[string]string{
		"empty":        "",
		"256 chars":    strings.Repeat("k", 256),
		"8000 chars":   strings.Repeat("k", 8000),
		"non-ASCII":    "clé",
		"control char": "a\tb",
	}
	for name, key := range bad {
		before := e.count("inventory_items")
		rec := e.dev(m, http.MethodPost, "/api/inventory", `{"sku":"s","name":"S","priceUsd":1}`, "Idempotency-Key", key)
		if rec.Code != 400 || decode(t, rec)["error"] != "invalid_input" {
			t.Fatalf("%s: %d %s", name, rec.Code, rec.Body)
		}
		if e.count("inventory_items") != before {
			t.Fatalf("%s: the request ran", name)
		}
		if rec := e.dev(m, http.MethodPost, "/api/receipts", `{"lineItems":[{"label":"a","priceUsd":1}],"totalUsd":1}`, "Idempotency-Key", key); rec.Code != 400 {
			t.Fatalf("%s on /api/receipts: %d %s", name, rec.Code, rec.Body)
		}
	}
	if rec := e.dev(m, http.MethodPost, "/api/inventory", `{"sku":"s","name":"S","priceUsd":1}`, "Idempotency-Key", strings.Repeat("~", 255)); rec.Code/100 != 2 {
		t.Fatalf("a 255-character key: %d %s", rec.Code, rec.Body)
	}
}

// TestIdempotencyKeyScopedToCaller: two merchants may use the same key for the same request;
// each gets its own answer.
func TestIdempotencyKeyScopedToCaller(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	a, b := e.merchant(false), e.merchant(false)
	before := e.count("api_keys")
	for _, m := range []merchant{a, b} {
		rec := e.do(req{method: http.MethodPost, path: "/api/admin/keys", body: `{"name":"ci","scopes":["receipts:read"]}`,
			cookies: m.cookies, header: map[string]string{CSRFHeader: m.csrf, "Idempotency-Key": "shared"}})
		if rec.Code != 201 || rec.Header().Get("Idempotent-Replayed") != "" {
			t.Fatalf("%s: %d %s (replayed %q)", m.wallet, rec.Code, rec.Body, rec.Header().Get("Idempotent-Replayed"))
		}
	}
	if n := e.count("api_keys"); n != before+2 {
		t.Fatalf("%d keys made, want 2 (one per merchant)", n-before)
	}
}
