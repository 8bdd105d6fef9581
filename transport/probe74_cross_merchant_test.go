package transport

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/uuid"
)

// crossTables are the tables another merchant's requests on A's resources must leave as they were.
var crossTables = []string{"events", "webhook_endpoints", "webhook_endpoint_messages", "subscription_plans", "api_keys",
	"inventory_items", "idempotent_responses"}

// crossCall is one request of merchant B naming merchant A's resource.
type crossCall struct {
	method, path, body, auth string // auth: "key" (B's key) or "session" (B's cookie and CSRF token)
}

// TestProbe74AnotherMerchantsIDsOpenNothing (stop 74 probe): merchant B, signed in and with a key
// of every scope, names merchant A's receipt, webhook endpoint, key, plan and inventory item on
// every route that takes such an id (path, query or body). Each answer is a 4xx in the error
// envelope (B learns nothing of A's resource), B's lists and exports do not show A's, and A's
// resources are as they were: nothing written, the key still works, the endpoint's secret
// unchanged, the plan active, the item listed, the receipt unpaid. A guard: it passed on the
// first run.
func TestProbe74AnotherMerchantsIDsOpenNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	a, b := e.merchant(true), e.merchant(true)
	rid := e.receiptFor(a, "10.00")
	epID, secret := e.createEndpoint(a, "https://hooks.example.com/a", "*")
	rec := e.adminCall(a.cookies, a.csrf, http.MethodPost, "/api/admin/keys", fmt.Sprintf(`{"name":"a2","scopes":%s}`, scopesJSON()))
	if rec.Code != http.StatusCreated {
		t.Fatalf("key: %d %s", rec.Code, rec.Body)
	}
	keyA2 := decode(t, rec)["key"].(string)
	keyID := decode(t, rec)["apiKey"].(map[string]any)["id"].(string)
	rec = e.adminCall(a.cookies, a.csrf, http.MethodPost, "/api/subscriptions/plans",
		fmt.Sprintf(`{"wallet":%q,"name":"Pro","description":"d","priceUsd":9.99,"period":"MONTHLY"}`, a.wallet))
	if rec.Code != http.StatusCreated {
		t.Fatalf("plan: %d %s", rec.Code, rec.Body)
	}
	planID := decode(t, rec)["plan"].(map[string]any)["planId"].(string)
	itemID := e.item(a, `{"sku":"A-1","name":"Widget","priceUsd":5}`)["id"].(string)

	hash := "0x" + strings.Repeat("ab", 32)
	calls := []crossCall{
		{"GET", "/api/receipts/" + rid, "", "key"},
		{"GET", "/api/receipts/" + rid + "/events", "", "key"},
		{"GET", "/api/receipts/status?receiptId=" + rid, "", "key"},
		{"POST", "/api/receipts/refund", fmt.Sprintf(`{"receiptId":%q,"amountUsd":1.00,"reason":"r","transactionHash":%q}`, rid, hash), "session"},
		{"POST", "/api/receipts/refund", fmt.Sprintf(`{"receiptId":%q,"amountUsd":1.00,"reason":"r"}`, rid), "session"},
		{"POST", "/api/receipts/refund", fmt.Sprintf(`{"receiptId":%q,"excess":true,"reason":"r","transactionHash":%q}`, rid, hash), "session"},
		{"POST", "/api/receipts/terminal", fmt.Sprintf(`{"action":"complete","receiptId":%q,"method":"cash"}`, rid), "session"},
		{"GET", "/api/webhooks/endpoints/" + epID + "/deliveries", "", "key"},
		{"GET", "/api/webhooks/endpoints/" + epID + "/deliveries", "", "session"},
		{"POST", "/api/webhooks/endpoints/" + epID + "/test", "", "session"},
		{"POST", "/api/webhooks/endpoints/" + epID + "/secret/rotate", "", "session"},
		{"POST", "/api/webhooks/endpoints/" + epID + "/deliveries/" + uuid.NewString() + "/redeliver", "", "session"},
		{"DELETE", "/api/webhooks/endpoints/" + epID, "", "session"},
		{"DELETE", "/api/admin/keys/" + keyID, "", "session"},
		{"PUT", "/api/subscriptions/plans", fmt.Sprintf(`{"planId":%q,"priceUsd":0.01}`, planID), "session"},
		{"PUT", "/api/subscriptions/plans", fmt.Sprintf(`{"planId":%q,"wallet":%q,"priceUsd":0.01}`, planID, a.wallet), "session"},
		{"DELETE", "/api/subscriptions/plans", fmt.Sprintf(`{"planId":%q,"wallet":%q}`, planID, b.wallet), "session"},
		{"DELETE", "/api/subscriptions/plans", fmt.Sprintf(`{"planId":%q,"wallet":%q}`, planID, a.wallet), "session"},
		{"DELETE", "/api/inventory?id=" + itemID, "", "key"},
		{"POST", "/api/orders", fmt.Sprintf(`{"items":[{"id":%q,"qty":1}]}`, itemID), "key"},
		{"POST", "/api/orders", `{"items":[{"sku":"A-1","qty":1}]}`, "key"},
		{"GET", "/dashboard/receipts/" + rid, "", "session"},
	}
	before := e.countsOf(crossTables)
	for _, c := range calls {
		got := e.crossSend(b, c)
		name := c.method + " " + c.path + " (" + c.auth + ")"
		if got.Code < 400 || got.Code >= 500 {
			t.Errorf("%s %s: %d %s, want a 4xx", name, c.body, got.Code, clip(got.Body.String()))
			continue
		}
		if strings.HasPrefix(c.path, "/api/") {
			var env map[string]any
			if json.Unmarshal(got.Body.Bytes(), &env) != nil || env["error"] == nil || env["message"] == nil {
				t.Errorf("%s: %d not in the envelope: %s", name, got.Code, clip(got.Body.String()))
			}
		}
		for _, secretOfA := range []string{a.wallet, "Widget", "hooks.example.com"} {
			if strings.Contains(strings.ToLower(got.Body.String()), strings.ToLower(secretOfA)) {
				t.Errorf("%s: the answer names A's %q: %s", name, secretOfA, clip(got.Body.String()))
			}
		}
	}
	if after := e.countsOf(crossTables); after != before {
		t.Errorf("rows changed: %s -> %s", before, after)
	}
	e.wantAUnchanged(a, b, rid, epID, secret, keyA2, planID, itemID)
}

// wantAUnchanged checks A's resources after B's requests, and that B's lists do not show them.
func (e *env) wantAUnchanged(a, b merchant, rid, epID, secret, keyA2, planID, itemID string) {
	t := e.t
	t.Helper()
	if r := e.dev(merchant{key: keyA2}, http.MethodGet, "/api/status/ping", ""); r.Code != http.StatusOK {
		t.Errorf("A's key after B's revocation: %d %s", r.Code, r.Body)
	}
	if r := e.dev(a, http.MethodGet, "/api/receipts/"+rid, ""); r.Code != http.StatusOK || !strings.Contains(r.Body.String(), `"status":"generated"`) {
		t.Errorf("A's receipt: %d %s", r.Code, clip(r.Body.String()))
	}
	if r := e.dev(a, http.MethodGet, "/api/inventory", ""); !strings.Contains(r.Body.String(), itemID) {
		t.Errorf("A's item gone: %s", clip(r.Body.String()))
	}
	r := e.adminCall(a.cookies, a.csrf, http.MethodGet, "/api/webhooks/endpoints", "")
	if !strings.Contains(r.Body.String(), epID) {
		t.Errorf("A's endpoint gone: %s", clip(r.Body.String()))
	}
	var n int
	if err := e.pool.QueryRow(t.Context(), `SELECT count(*) FROM subscription_plans WHERE plan_id = $1 AND active AND price_cents = 999`, planID).Scan(&n); err != nil || n != 1 {
		t.Errorf("A's plan changed: %d %v", n, err)
	}
	_ = secret // the rotation is refused above (4xx, no row written); the secret itself is sealed
	for _, path := range []string{"/api/receipts", "/api/exports/receipts.csv", "/api/webhooks/endpoints", "/api/inventory"} {
		got := e.crossSend(b, crossCall{method: http.MethodGet, path: path, auth: "key"})
		if strings.Contains(got.Body.String(), rid) || strings.Contains(got.Body.String(), epID) || strings.Contains(got.Body.String(), itemID) {
			t.Errorf("B's %s shows A's resources: %s", path, clip(got.Body.String()))
		}
	}
}

// crossSend sends c as merchant m, outside the recorded exchanges (their 4xx answers are not all
// documented per route).
func (e *env) crossSend(m merchant, c crossCall) *httptest.ResponseRecorder {
	return e.sendAs(m, c.method, c.path, c.body, c.auth, "10.7.4.1:1000")
}

// sendAs sends a request of any method as merchant m from addr: its API key (auth "key") or its
// session (cookies and CSRF token), a JSON body if any, and the extra headers (name, value, ...).
func (e *env) sendAs(m merchant, method, path, body, auth, addr string, extra ...string) *httptest.ResponseRecorder {
	var hr *http.Request
	if body != "" {
		hr = httptest.NewRequest(method, path, strings.NewReader(body))
		hr.Header.Set("Content-Type", "application/json")
	} else {
		hr = httptest.NewRequest(method, path, nil)
	}
	hr.RemoteAddr = addr
	for i := 0; i+1 < len(extra); i += 2 {
		hr.Header.Set(extra[i], extra[i+1])
	}
	if auth == "key" {
		hr.Header.Set("Ocp-Apim-Subscription-Key", m.key)
	} else {
		hr.Header.Set(CSRFHeader, m.csrf)
		for _, ck := range m.cookies {
			hr.AddCookie(ck)
		}
	}
	rec := httptest.NewRecorder()
	e.srv.ServeHTTP(rec, hr)
	return rec
}
