package transport

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// TestIdempotencyKeyOnEveryPost: three POST routes of the developer and admin APIs replay their
// first answer to the same key and body, and refuse another body with 409 conflict.
func TestIdempotencyKeyOnEveryPost(t *testing.T) {
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
