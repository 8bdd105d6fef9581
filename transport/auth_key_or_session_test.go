package transport

import (
	"net/http"
	"testing"
	"time"
)

// TestAKeyDecidesOverAKeptCookie: on the routes that take a key or the dashboard's session
// (endpoint lists, exports), a request with a valid key was refused 401 "JWT authentication
// failed" when it also carried a session cookie that was no longer valid (an HTTP tool keeps the
// cookie of an earlier sign-in), and one with another wallet's valid cookie was answered for
// that wallet. The key the request names decides; the cookie only when there is no key.
func TestAKeyDecidesOverAKeptCookie(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(d *testDeps) { d.Config.Production = false })
	m := e.merchant(false)
	other := e.merchant(false)
	mine, _ := e.createEndpoint(m, "http://127.0.0.1:1/mine", "*")
	theirs, _ := e.createEndpoint(other, "http://127.0.0.1:1/theirs", "*")
	listed := func(body map[string]any) string {
		eps, _ := body["endpoints"].([]any)
		if len(eps) != 1 {
			return ""
		}
		id, _ := eps[0].(map[string]any)["id"].(string)
		return id
	}
	e.clk.Advance(25 * time.Hour) // every session of the test has expired
	expired := m.cookies
	other.cookies, other.csrf = e.login(other.priv)
	for name, c := range map[string][]*http.Cookie{"expired cookie": expired, "another wallet's cookie": other.cookies,
		"garbage cookie": {{Name: SessionCookie, Value: "not.a.jwt"}}} {
		rec := e.do(req{method: http.MethodGet, path: "/api/webhooks/endpoints", cookies: c,
			header: map[string]string{"Ocp-Apim-Subscription-Key": m.key}})
		if rec.Code != http.StatusOK || listed(decode(t, rec)) != mine {
			t.Errorf("key with %s: %d %s, want the key's endpoint %s", name, rec.Code, rec.Body, mine)
		}
		if rec := e.do(req{method: http.MethodGet, path: "/api/exports/receipts.csv", cookies: c,
			header: map[string]string{"x-api-key": m.key}}); rec.Code != http.StatusOK {
			t.Errorf("export by key with %s: %d %s", name, rec.Code, rec.Body)
		}
	}
	// Without a key, the cookie decides, as the dashboard's links need.
	rec := e.do(req{method: http.MethodGet, path: "/api/webhooks/endpoints", cookies: other.cookies})
	if rec.Code != http.StatusOK || listed(decode(t, rec)) != theirs {
		t.Fatalf("session alone: %d %s, want %s", rec.Code, rec.Body, theirs)
	}
	if rec := e.do(req{method: http.MethodGet, path: "/api/webhooks/endpoints", cookies: expired}); rec.Code != http.StatusUnauthorized {
		t.Fatalf("expired session alone: %d", rec.Code)
	}
}
