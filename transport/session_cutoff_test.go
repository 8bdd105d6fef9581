package transport

import (
	"net/http"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
)

// logoutAll ends every session of the wallet signed in with cookies and csrf.
func (e *env) logoutAll(cookies []*http.Cookie, csrf string) {
	e.t.Helper()
	if rec := e.adminCall(cookies, csrf, http.MethodPost, "/api/auth/logout-all", ""); rec.Code != http.StatusOK {
		e.t.Fatalf("logout-all: %d %s", rec.Code, rec.Body)
	}
}

// TestASignInRightAfterLogoutAllIsAccepted: a session carries the wallet's logout-all cutoff it
// was issued after, so a sign-in right after a logout-all is ordered after it by the database,
// not by the clocks. Before, logout-all's cutoff was 5 s ahead of its clock (the instances' skew)
// and a sign-in within those seconds was answered 429; the session signed in now works and
// outlives nothing: the next logout-all ends it.
func TestASignInRightAfterLogoutAllIsAccepted(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	priv, _ := crypto.GenerateKey()
	before, csrf := e.login(priv)
	e.logoutAll(before, csrf)
	if code := e.me(before); code != http.StatusUnauthorized {
		t.Fatalf("the session before the logout-all: %d; want 401", code)
	}
	wallet := walletOf(priv)
	_, sig := e.signNonce(priv, wallet)
	rec := e.do(req{method: http.MethodPost, path: "/api/auth/login", body: loginBody(wallet, sig)})
	if rec.Code != http.StatusOK {
		t.Fatalf("sign-in at the clock's instant of the logout-all: %d %s; want 200", rec.Code, rec.Body)
	}
	after := rec.Result().Cookies()
	if code := e.me(after); code != http.StatusOK {
		t.Fatalf("the session signed in right after the logout-all: %d; want 200", code)
	}
	again, csrf := e.login(priv)
	e.logoutAll(again, csrf)
	for name, ck := range map[string][]*http.Cookie{"right after the first": after, "the caller's": again} {
		if code := e.me(ck); code != http.StatusUnauthorized {
			t.Fatalf("%s session after a second logout-all: %d; want 401", name, code)
		}
	}
}

// TestLogoutAllOnASlowerClockEndsTheSessionsBeforeIt: a logout-all made by an instance whose
// clock runs 3 s behind the one that made the last logout-all still ends the sessions signed in
// since: the cutoff moves on from its last value, not only to this clock's plus the skew (which
// is before that value, and left the cutoff where it was: the sessions outlived it).
func TestLogoutAllOnASlowerClockEndsTheSessionsBeforeIt(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	priv, _ := crypto.GenerateKey()
	first, csrf := e.login(priv)
	e.logoutAll(first, csrf)
	second, csrf := e.login(priv)
	if code := e.me(second); code != http.StatusOK {
		t.Fatalf("the session signed in after the first logout-all: %d; want 200", code)
	}
	e.clk.Advance(-3 * time.Second) // the instance that ends it runs 3 s behind
	e.logoutAll(second, csrf)
	if code := e.me(second); code != http.StatusUnauthorized {
		t.Fatalf("the session after a second logout-all, made on a clock 3 s behind: %d; want 401", code)
	}
}

// TestATokenWithoutACutoffKeepsTheClockRule: a token issued before sessions carried their cutoff
// (no cutoff claim) is still ended by its issue time: one issued up to the skew past the
// logout-all's clock is ended, one issued after that is not.
func TestATokenWithoutACutoffKeepsTheClockRule(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	priv, _ := crypto.GenerateKey()
	wallet := walletOf(priv)
	cookies, csrf := e.login(priv)
	now := e.clk.Now()
	ahead := e.sessionCookieAt(wallet, "old-ahead", now.Add(3*time.Second), now.Add(time.Hour))
	e.logoutAll(cookies, csrf)
	if code := e.me([]*http.Cookie{ahead}); code != http.StatusUnauthorized {
		t.Fatalf("an old token issued 3 s ahead of the logout-all: %d; want 401", code)
	}
	e.clk.Advance(sessionClockSkew + time.Second)
	later := e.sessionCookieAt(wallet, "old-later", e.clk.Now(), e.clk.Now().Add(time.Hour))
	if code := e.me([]*http.Cookie{later}); code != http.StatusOK {
		t.Fatalf("an old token issued past the logout-all's cutoff: %d; want 200", code)
	}
}
