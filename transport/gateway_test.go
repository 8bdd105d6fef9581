package transport

import (
	"crypto/ecdsa"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/signer/core/apitypes"
	"github.com/payledger/payledger/chain"
)

// Issue 20, item 3 (spec, Authentication point 3: direct origin access is denied): in gateway
// mode every route answers 403 without a valid x-edge-secret, whatever its own policy (public,
// signed-in session, cron, key): the API and the merchant's dashboard (stop 60: its pages opened
// with a cookie from the edge), except the processor's signed webhook, the payment page and the
// probes (/healthz is open).
func TestGatewayDeniesDirectOriginAccess(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(d *testDeps) { d.Config.GatewayMode = true })
	// A session obtained through the edge must not work directly either.
	edge := map[string]string{"x-edge-secret": testEdgeSecret}
	cookies, csrf := e.loginVia(e.admin, edge)
	walked, dashboard := 0, 0
	for _, r := range e.srv.Routes() {
		path := strings.NewReplacer(":id", "x", "*", "x").Replace(r.Path)
		if open := httptest.NewRequest(r.Method, path, nil); reachableDirectly(open) &&
			!(r.Method == http.MethodPost && r.Path == "/api/processor/webhook") {
			continue
		}
		if strings.HasPrefix(r.Path, "/dashboard") {
			dashboard++
		}
		for _, wrong := range []string{"", "guess"} {
			hr := httptest.NewRequest(r.Method, path, strings.NewReader(`{}`))
			hr.Header.Set("Content-Type", "application/json")
			hr.Header.Set("x-cron-secret", testCronSecret)
			hr.Header.Set(CSRFHeader, csrf)
			for _, c := range cookies {
				hr.AddCookie(c)
			}
			if wrong != "" {
				hr.Header.Set("x-edge-secret", wrong)
			}
			rr := httptest.NewRecorder()
			e.srv.ServeHTTP(rr, hr)
			if r.Method == http.MethodPost && r.Path == "/api/processor/webhook" {
				if rr.Code == 403 {
					t.Errorf("processor webhook refused without the edge: %d", rr.Code)
				}
				continue
			}
			if rr.Code != 403 || decode(t, rr)["error"] != "forbidden" {
				t.Errorf("%s %s (edge secret %q): %d %s, want 403", r.Method, path, wrong, rr.Code, clip(rr.Body.String()))
			}
		}
		walked++
	}
	if walked < 30 || dashboard < 6 {
		t.Fatalf("walked only %d routes, %d of the dashboard", walked, dashboard)
	}
	if rec := e.do(req{method: http.MethodGet, path: "/healthz"}); rec.Code != 200 {
		t.Fatalf("/healthz: %d", rec.Code)
	}
	// Through the edge the session works.
	rec := e.do(req{method: http.MethodGet, path: "/api/auth/me", cookies: cookies, header: edge})
	if rec.Code != 200 {
		t.Fatalf("me through the edge: %d %s", rec.Code, rec.Body)
	}
}

// loginVia signs in as login does, with header on both requests.
func (e *env) loginVia(key *ecdsa.PrivateKey, header map[string]string) ([]*http.Cookie, string) {
	e.t.Helper()
	wallet := walletOf(key)
	rec := e.do(req{method: http.MethodPost, path: "/api/auth/nonce", body: `{"wallet":"` + wallet + `"}`, header: header})
	var resp struct {
		TypedData apitypes.TypedData `json:"typedData"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &resp); err != nil || rec.Code != 200 {
		e.t.Fatalf("nonce: %d %s", rec.Code, rec.Body)
	}
	sig, err := chain.SignTypedData(resp.TypedData, key)
	if err != nil {
		e.t.Fatal(err)
	}
	rec = e.do(req{method: http.MethodPost, path: "/api/auth/login", body: loginBody(wallet, sig), header: header})
	if rec.Code != 200 {
		e.t.Fatalf("login: %d %s", rec.Code, rec.Body)
	}
	var csrf string
	for _, c := range rec.Result().Cookies() {
		if c.Name == CSRFCookie {
			csrf = c.Value
		}
	}
	return rec.Result().Cookies(), csrf
}
