package transport

import (
	"net/http"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// sessionCookieAt is a session token of wallet as an instance whose clock reads issued signs it,
// expiring at exp.
func (e *env) sessionCookieAt(wallet, id string, issued, exp time.Time) *http.Cookie {
	e.t.Helper()
	token, err := jwt.NewWithClaims(jwt.SigningMethodHS256, sessionClaims{Roles: []string{RoleMerchant},
		RegisteredClaims: jwt.RegisteredClaims{Subject: wallet, IssuedAt: jwt.NewNumericDate(issued),
			ExpiresAt: jwt.NewNumericDate(exp), ID: id, Issuer: sessionIssuer, Audience: jwt.ClaimStrings{"pay.example"}},
	}).SignedString([]byte(testJWTSecret))
	if err != nil {
		e.t.Fatal(err)
	}
	return &http.Cookie{Name: SessionCookie, Value: token}
}

// TestSessionIssueTimeLeeway: a session issued by an instance whose clock runs ahead (its iat in
// this instance's future) is accepted up to sessionClockSkew ahead; before, any iat past this
// clock's now was refused. The expiry keeps no leeway: a token is refused from its exp on.
func TestSessionIssueTimeLeeway(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	wallet := walletOf(e.admin)
	now := e.clk.Now().Truncate(time.Second)
	cases := []struct {
		name        string
		issued, exp time.Time
		want        int
	}{
		{"issued now", now, now.Add(time.Hour), http.StatusOK},
		{"issued an hour ago", now.Add(-time.Hour), now.Add(time.Hour), http.StatusOK},
		{"issued 2 s ahead (a faster clock)", now.Add(2 * time.Second), now.Add(time.Hour), http.StatusOK},
		{"issued the whole skew ahead", now.Add(sessionClockSkew), now.Add(time.Hour), http.StatusOK},
		{"issued past the skew", now.Add(sessionClockSkew + 2*time.Second), now.Add(time.Hour), http.StatusUnauthorized},
		{"issued an hour ahead", now.Add(time.Hour), now.Add(2 * time.Hour), http.StatusUnauthorized},
		{"expired a second ago", now.Add(-time.Hour), now.Add(-time.Second), http.StatusUnauthorized},
		{"expired a second ago, issued ahead", now.Add(2 * time.Second), now.Add(-time.Second), http.StatusUnauthorized},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ck := e.sessionCookieAt(wallet, "skew"+string(rune('a'+i)), tc.issued, tc.exp)
			if code := e.me([]*http.Cookie{ck}); code != tc.want {
				t.Fatalf("GET /api/auth/me: %d; want %d", code, tc.want)
			}
		})
	}
}

// TestLogoutAllEndsSessionsIssuedAheadWithinTheSkew: a session issued just before a logout-all
// by an instance whose clock runs 3 s ahead (its iat past this clock's now) is ended with the
// others; before, the cutoff was this instance's now and that session outlived the logout-all.
// A sign-in right after it is accepted (stop 70: its session carries the wallet's cutoff, so the
// logout-all before it does not end it; it was answered 429 until the cutoff's 5 s had passed).
func TestLogoutAllEndsSessionsIssuedAheadWithinTheSkew(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	wallet := walletOf(e.admin)
	cookies, csrf := e.login(e.admin)
	now := e.clk.Now()
	ahead := e.sessionCookieAt(wallet, "faster-instance", now.Add(3*time.Second), now.Add(time.Hour))
	if code := e.me([]*http.Cookie{ahead}); code != http.StatusOK {
		t.Fatalf("the faster instance's session before the logout-all: %d", code)
	}
	rec := e.do(req{method: http.MethodPost, path: "/api/auth/logout-all", cookies: cookies, header: map[string]string{CSRFHeader: csrf}})
	if rec.Code != http.StatusOK {
		t.Fatalf("logout-all: %d %s", rec.Code, rec.Body)
	}
	for name, ck := range map[string][]*http.Cookie{"this instance's": cookies, "the faster instance's": {ahead}} {
		if code := e.me(ck); code != http.StatusUnauthorized {
			t.Fatalf("%s session after logout-all: %d; want 401", name, code)
		}
	}

	_, sig := e.signNonce(e.admin, wallet)
	rec = e.do(req{method: http.MethodPost, path: "/api/auth/login", body: loginBody(wallet, sig)})
	if rec.Code != http.StatusOK {
		t.Fatalf("sign-in right after logout-all: %d %s; want 200", rec.Code, rec.Body)
	}
	if code := e.me(rec.Result().Cookies()); code != http.StatusOK {
		t.Fatalf("the new session: %d", code)
	}
}
