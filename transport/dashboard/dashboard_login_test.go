package dashboard_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/payledger/payledger/transport/transporttest"
)

// Finding 11: POST /dashboard/login/link checks Origin like every session POST (login CSRF: a
// page elsewhere must not sign a browser in to the attacker's account), and the outstanding
// sign-in links are limited per merchant: merchant A issuing links until refused leaves B able
// to issue one (the instance's 32 were shared).
func TestSignInLinkChecksOriginAndLimitsPerMerchant(t *testing.T) {
	e := dashEnv(t, nil)
	a, b := e.Merchant(false), e.Merchant(false)
	issue := func(m transporttest.Merchant) *httptest.ResponseRecorder {
		return e.AdminCall(m.Cookies, m.CSRF, http.MethodPost, "/api/auth/dev-link", `{}`)
	}
	link, _ := url.Parse(transporttest.Decode(t, issue(a))["url"].(string))
	token := link.Query().Get("token")
	use := func(header map[string]string) int {
		header["Content-Type"] = "application/x-www-form-urlencoded"
		return e.Do(transporttest.Req{Method: http.MethodPost, Path: "/dashboard/login/link", Body: "token=" + token, Header: header}).Code
	}
	for name, h := range map[string]map[string]string{
		"another site's Origin":  {"Origin": "https://evil.example"},
		"Origin null":            {"Origin": "null"},
		"another site's Referer": {"Referer": "https://evil.example/page"},
		"neither":                {},
	} {
		if code := use(h); code != http.StatusForbidden {
			t.Errorf("%s: %d, want 403", name, code)
		}
	}
	if code := use(map[string]string{"Origin": "https://pay.example"}); code != http.StatusSeeOther {
		t.Fatalf("the service's own origin: %d (a refused attempt must not use the link up)", code)
	}

	refused := 0
	for range 40 {
		if rec := issue(a); rec.Code == http.StatusTooManyRequests {
			refused++
			// The spec's rate_limited says when the bound lifts: resetAt (ms), and Retry-After.
			reset, _ := transporttest.Decode(t, rec)["resetAt"].(float64)
			if reset <= float64(time.Now().UnixMilli()) || rec.Header().Get("Retry-After") == "" {
				t.Fatalf("the refused link's 429 says nothing of when it lifts: %s %v", rec.Body, rec.Header())
			}
			break
		}
	}
	if refused == 0 {
		t.Fatal("one merchant issued 40 outstanding sign-in links")
	}
	if rec := issue(b); rec.Code != http.StatusOK {
		t.Fatalf("merchant B after A's links: %d %s", rec.Code, rec.Body)
	}
}
