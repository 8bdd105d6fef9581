package transport

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/uuid"
)

// TestIdempotencyKeyReplayOfARevokedAPIKey: the kept answer of POST /api/admin/keys is the new
// key's secret. Once that key is revoked, a retry under the same Idempotency-Key answered 201
// with it again (Idempotent-Replayed: true): a provisioning script re-run within the 24 h
// deployed a dead key as freshly made, and the store kept the revoked secret for the rest of the
// day. The retry is now 409 conflict (a new key needs a new Idempotency-Key), without the secret,
// from then on, and nothing is made.
func TestIdempotencyKeyReplayOfARevokedAPIKey(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(false)
	create := func() *httptest.ResponseRecorder {
		return e.do(req{method: http.MethodPost, path: "/api/admin/keys", body: `{"name":"ci","scopes":["receipts:read"]}`,
			cookies: m.cookies, header: map[string]string{CSRFHeader: m.csrf, "Idempotency-Key": "provision-ci"}})
	}
	first := create()
	if first.Code != 201 {
		t.Fatalf("create: %d %s", first.Code, first.Body)
	}
	secret := decode(t, first)["key"].(string)
	id := uuid.MustParse(decode(t, first)["apiKey"].(map[string]any)["id"].(string))
	if again := create(); again.Code != 201 || again.Body.String() != first.Body.String() {
		t.Fatalf("replay of a live key: %d %s", again.Code, again.Body)
	}
	if err := e.keys.Revoke(context.Background(), m.wallet, id); err != nil {
		t.Fatal(err)
	}
	before := e.count("api_keys")
	for range 2 { // the refusal holds: the kept answer no longer names the key
		rec := create()
		if rec.Code != 409 || decode(t, rec)["error"] != "conflict" || strings.Contains(rec.Body.String(), secret) {
			t.Fatalf("replay after the key was revoked: %d %s", rec.Code, rec.Body)
		}
	}
	if n := e.count("api_keys"); n != before {
		t.Fatalf("%d keys made by the retries", n-before)
	}
	var kept string
	if err := e.pool.QueryRow(context.Background(), `SELECT status::text FROM idempotent_responses WHERE principal = $1 AND key = 'provision-ci'`,
		"wallet:"+m.wallet).Scan(&kept); err != nil || kept != "409" {
		t.Fatalf("kept answer: %q %v (the revoked secret stays kept)", kept, err)
	}
	// Another key of the merchant is not affected: its replay still answers it.
	other := e.do(req{method: http.MethodPost, path: "/api/admin/keys", body: `{"name":"cd","scopes":["receipts:read"]}`,
		cookies: m.cookies, header: map[string]string{CSRFHeader: m.csrf, "Idempotency-Key": "provision-cd"}})
	replay := e.do(req{method: http.MethodPost, path: "/api/admin/keys", body: `{"name":"cd","scopes":["receipts:read"]}`,
		cookies: m.cookies, header: map[string]string{CSRFHeader: m.csrf, "Idempotency-Key": "provision-cd"}})
	if other.Code != 201 || replay.Code != 201 || replay.Body.String() != other.Body.String() {
		t.Fatalf("a live key's replay: %d %s / %d %s", other.Code, other.Body, replay.Code, replay.Body)
	}
}

// TestIdempotencyKeyReplayOfADeletedEndpoint: as for API keys, the kept answer of POST
// /api/webhooks/endpoints is the endpoint with its signing secret; once the endpoint is deleted a
// retry under the same key answered 201 with it (a script then waits for deliveries that never
// come). Now 409 conflict, without the secret, and no endpoint is made.
func TestIdempotencyKeyReplayOfADeletedEndpoint(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(d *testDeps) { d.Config.Production = false })
	m := e.merchant(false)
	create := func() *httptest.ResponseRecorder {
		return e.do(req{method: http.MethodPost, path: "/api/webhooks/endpoints", body: `{"url":"http://localhost:9/hook","events":["*"]}`,
			cookies: m.cookies, header: map[string]string{CSRFHeader: m.csrf, "Idempotency-Key": "provision-hook"}})
	}
	first := create()
	if first.Code != 201 {
		t.Fatalf("create: %d %s", first.Code, first.Body)
	}
	ep := decode(t, first)["endpoint"].(map[string]any)
	if again := create(); again.Code != 201 || again.Body.String() != first.Body.String() {
		t.Fatalf("replay of a live endpoint: %d %s", again.Code, again.Body)
	}
	if rec := e.do(req{method: http.MethodDelete, path: "/api/webhooks/endpoints/" + ep["id"].(string), cookies: m.cookies,
		header: map[string]string{CSRFHeader: m.csrf}}); rec.Code/100 != 2 {
		t.Fatalf("delete: %d %s", rec.Code, rec.Body)
	}
	before := e.count("webhook_endpoints")
	for range 2 {
		rec := create()
		if rec.Code != 409 || decode(t, rec)["error"] != "conflict" || strings.Contains(rec.Body.String(), ep["secret"].(string)) {
			t.Fatalf("replay after the endpoint was deleted: %d %s", rec.Code, rec.Body)
		}
	}
	if n := e.count("webhook_endpoints"); n != before {
		t.Fatalf("%d endpoints made by the retries", n-before)
	}
}

// TestIdempotencyKeyReplayOfARotationOfADeletedEndpoint: a kept secret rotation of an endpoint
// deleted since answered 200 with that secret again; it now answers as a rotation of a deleted
// endpoint does (404 not_found), without the secret.
func TestIdempotencyKeyReplayOfARotationOfADeletedEndpoint(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(d *testDeps) { d.Config.Production = false })
	m := e.merchant(false)
	made := e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/webhooks/endpoints", `{"url":"http://localhost:9/hook","events":["*"]}`)
	if made.Code != 201 {
		t.Fatalf("create: %d %s", made.Code, made.Body)
	}
	id := decode(t, made)["endpoint"].(map[string]any)["id"].(string)
	rotate := func() *httptest.ResponseRecorder {
		return e.do(req{method: http.MethodPost, path: "/api/webhooks/endpoints/" + id + "/secret/rotate", cookies: m.cookies,
			header: map[string]string{CSRFHeader: m.csrf, "Idempotency-Key": "rotate-1"}})
	}
	first := rotate()
	if first.Code != 200 {
		t.Fatalf("rotate: %d %s", first.Code, first.Body)
	}
	secret := decode(t, first)["endpoint"].(map[string]any)["secret"].(string)
	if rec := e.do(req{method: http.MethodDelete, path: "/api/webhooks/endpoints/" + id, cookies: m.cookies,
		header: map[string]string{CSRFHeader: m.csrf}}); rec.Code/100 != 2 {
		t.Fatalf("delete: %d %s", rec.Code, rec.Body)
	}
	for range 2 {
		rec := rotate()
		if rec.Code != 404 || decode(t, rec)["error"] != "not_found" || strings.Contains(rec.Body.String(), secret) {
			t.Fatalf("replay after the endpoint was deleted: %d %s", rec.Code, rec.Body)
		}
	}
}
