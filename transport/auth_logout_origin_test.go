package transport

import (
	"net/http"
	"testing"
)

// TestLogoutFromAnotherSiteChangesNothing: POST /api/auth/logout takes no CSRF token, and a page
// on another site (or a sibling host, whose POSTs carry the Lax session cookie) could end a
// merchant's session on the server, or clear its cookies. A browser's POST from another origin
// (or "null") is now refused and changes nothing; the service's own pages and clients that send
// no Origin log out as before.
func TestLogoutFromAnotherSiteChangesNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(false)
	for _, origin := range []string{"https://evil.example", "https://shop.pay.example", "null", "https://pay.example.evil.example"} {
		rec := e.do(req{method: http.MethodPost, path: "/api/auth/logout", cookies: m.cookies, header: map[string]string{"Origin": origin}})
		if rec.Code != http.StatusForbidden || decode(t, rec)["error"] != "forbidden" {
			t.Fatalf("logout from %s: %d %s, want 403 forbidden", origin, rec.Code, rec.Body)
		}
		if n := len(rec.Result().Cookies()); n != 0 {
			t.Fatalf("logout from %s set %d cookies", origin, n)
		}
		if code := e.me(m.cookies); code != http.StatusOK {
			t.Fatalf("the session after a logout from %s: %d", origin, code)
		}
	}
	for _, origin := range []string{"https://pay.example", "http://example.com", ""} { // the public URL, the host asked, no browser
		h := map[string]string{}
		if origin != "" {
			h["Origin"] = origin
		}
		cookies, _ := e.login(m.priv)
		if rec := e.do(req{method: http.MethodPost, path: "/api/auth/logout", cookies: cookies, header: h}); rec.Code != http.StatusOK {
			t.Fatalf("logout from %q: %d %s", origin, rec.Code, rec.Body)
		}
		if code := e.me(cookies); code != http.StatusUnauthorized {
			t.Fatalf("the session after a logout from %q: %d", origin, code)
		}
	}
}
