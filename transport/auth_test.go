package transport

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"
	"github.com/labstack/echo/v4"
)

// TestEveryRouteHasAnAuthDecision runs every registered route against every kind of credential.
// The table is built from the router, so a route added without a policy fails here.
func TestEveryRouteHasAnAuthDecision(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	wallet := walletOf(e.admin)
	cookies, csrf := e.login(e.admin)
	allScopes := e.key(wallet, Scopes...)
	// Every scope guards some route: "key without the scope" holds every scope but the route's.
	allBut := map[string]string{}
	for _, s := range Scopes {
		var others []string
		for _, o := range Scopes {
			if o != s {
				others = append(others, o)
			}
		}
		allBut[s] = e.key(wallet, others...)
	}
	unrelatedScope := allBut["graphql:read"]

	type cred struct {
		name    string
		header  map[string]string
		cookies []*http.Cookie
	}
	creds := []cred{
		{name: "no credentials"},
		{name: "bad key", header: map[string]string{"Ocp-Apim-Subscription-Key": "plk_not-a-real-key"}},
		{name: "key without the scope", header: map[string]string{"Ocp-Apim-Subscription-Key": unrelatedScope}},
		{name: "right key", header: map[string]string{"Ocp-Apim-Subscription-Key": allScopes}},
		{name: "admin cookie without CSRF", cookies: cookies},
		{name: "admin cookie with CSRF", cookies: cookies, header: map[string]string{CSRFHeader: csrf}},
	}
	const (
		allowed = 0 // anything but 401/403
	)
	var expect func(r RouteInfo, c cred) int
	expect = func(r RouteInfo, c cred) int {
		p := r.Policy
		switch p.Access {
		case Open, Public:
			return allowed
		case Cron, Signed:
			return http.StatusUnauthorized
		case Developer:
			switch c.name {
			case "right key":
				return allowed
			case "key without the scope":
				if p.Scope == "" {
					return allowed
				}
				return http.StatusForbidden
			default:
				return http.StatusUnauthorized
			}
		case KeyOrSession: // the session when the cookie is there, else the key
			if c.cookies != nil {
				p.Access = Admin
			} else {
				p.Access = Developer
			}
			return expect(RouteInfo{Method: r.Method, Path: r.Path, Policy: p}, c)
		case Admin:
			switch c.name {
			case "admin cookie with CSRF":
				return allowed
			case "admin cookie without CSRF":
				if r.Method == http.MethodGet {
					return allowed
				}
				return http.StatusForbidden
			default:
				return http.StatusUnauthorized
			}
		}
		return -1
	}
	remote := 0
	routes := e.srv.Routes()
	if len(routes) < 9 {
		t.Fatalf("only %d routes registered", len(routes))
	}
	for _, r := range routes {
		if r.Policy.Access < Public || r.Policy.Access > KeyOrSession {
			t.Errorf("%s %s has no authentication decision", r.Method, r.Path)
			continue
		}
		path := strings.ReplaceAll(r.Path, ":id", uuid.NewString())
		body := ""
		if r.Method != http.MethodGet {
			body = "{}"
		}
		for _, c := range creds {
			if c.name == "key without the scope" && r.Policy.Scope != "" {
				c.header = map[string]string{"Ocp-Apim-Subscription-Key": allBut[r.Policy.Scope]}
			}
			if r.Path == "/api/webhooks/stream" { // an id it never sent: answered (400) instead of streaming for minutes
				h := map[string]string{"Last-Event-ID": "x"}
				for k, v := range c.header {
					h[k] = v
				}
				c.header = h
			}
			if r.Path == "/dashboard/login/link" && r.Method == http.MethodPost { // a same-origin form post (login CSRF is refused, TestSignInLinkChecksOriginAndLimitsPerMerchant)
				h := map[string]string{"Origin": "http://example.com"}
				for k, v := range c.header {
					h[k] = v
				}
				c.header = h
			}
			if (r.Path == "/api/auth/logout" && c.cookies != nil) || (r.Path == "/api/auth/logout-all" && c.name == "admin cookie with CSRF") {
				continue // would end the session the rest of the walk uses (TestLogoutEndsTheSessionOnTheServer)
			}
			// Each request from its own address: wrong cron secrets and signatures are limited per
			// address (TestWrongCronSecretsAreRateLimited), and this walk sends many.
			remote++
			rec := e.do(req{method: r.Method, path: path, body: body, header: c.header, cookies: c.cookies,
				remote: fmt.Sprintf("10.%d.%d.1:1000", remote/250, remote%250)})
			want := expect(r, c)
			got := rec.Code
			if want == allowed {
				if got == http.StatusUnauthorized || got == http.StatusForbidden {
					t.Errorf("%s %s with %s: %d %s, want access", r.Method, r.Path, c.name, got, rec.Body)
				}
				continue
			}
			if got != want {
				t.Errorf("%s %s with %s: %d %s, want %d", r.Method, r.Path, c.name, got, rec.Body, want)
				continue
			}
			env := decode(t, rec)
			code := map[int]string{401: "unauthorized", 403: "forbidden"}[want]
			if env["error"] != code || env["message"] == "" {
				t.Errorf("%s %s with %s: envelope %v", r.Method, r.Path, c.name, env)
			}
		}
	}
}

func TestDeveloperErrorMessages(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	rec := e.do(req{method: http.MethodGet, path: "/api/status/ping"})
	if env := decode(t, rec); rec.Code != 401 || env["message"] != "Missing or invalid subscription key" {
		t.Fatalf("no key: %d %v", rec.Code, env)
	}
}

func TestPingWithEachKeyHeader(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	wallet := "0x" + strings.Repeat("ab", 20)
	key := e.key(wallet, "orders:create", "receipts:read")
	for name, h := range map[string]map[string]string{
		"subscription key": {"Ocp-Apim-Subscription-Key": key},
		"x-api-key":        {"x-api-key": key},
		"bearer":           {"Authorization": "Bearer " + key},
	} {
		rec := e.do(req{method: http.MethodGet, path: "/api/status/ping", header: h})
		env := decode(t, rec)
		if rec.Code != 200 || env["ok"] != true || env["wallet"] != wallet || len(env["scopes"].([]any)) != 2 || env["time"] == nil {
			t.Errorf("%s: %d %v", name, rec.Code, env)
		}
	}
	if rec := e.do(req{method: http.MethodGet, path: "/healthz"}); rec.Code != 200 {
		t.Errorf("/healthz must stay open: %d", rec.Code)
	}
}

func TestLogin(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	merchant, _ := crypto.GenerateKey()
	wallet := walletOf(merchant)

	t.Run("valid signature sets both cookies", func(t *testing.T) {
		_, sig := e.signNonce(merchant, wallet)
		rec := e.do(req{method: http.MethodPost, path: "/api/auth/login", body: loginBody("0x"+strings.ToUpper(wallet[2:]), sig)})
		if rec.Code != 200 {
			t.Fatalf("login: %d %s", rec.Code, rec.Body)
		}
		var session, csrf *http.Cookie
		for _, c := range rec.Result().Cookies() {
			switch c.Name {
			case SessionCookie:
				session = c
			case CSRFCookie:
				csrf = c
			}
		}
		if session == nil || !session.HttpOnly || session.SameSite != http.SameSiteLaxMode || session.Path != "/" || session.Secure {
			t.Fatalf("session cookie %+v", session)
		}
		if csrf == nil || csrf.HttpOnly || len(csrf.Value) < 32 {
			t.Fatalf("csrf cookie %+v", csrf)
		}
		me := e.do(req{method: http.MethodGet, path: "/api/auth/me", cookies: []*http.Cookie{session}})
		env := decode(t, me)
		if me.Code != 200 || env["wallet"] != wallet || len(env["roles"].([]any)) != 1 {
			t.Fatalf("me: %d %v", me.Code, env)
		}
	})
	t.Run("admin wallet gets the admin role", func(t *testing.T) {
		cookies, _ := e.login(e.admin)
		env := decode(t, e.do(req{method: http.MethodGet, path: "/api/auth/me", cookies: cookies}))
		if roles := env["roles"].([]any); len(roles) != 2 || roles[1] != RoleAdmin {
			t.Fatalf("roles %v", roles)
		}
	})
	t.Run("wrong signer", func(t *testing.T) {
		other, _ := crypto.GenerateKey()
		_, sig := e.signNonce(other, wallet)
		rec := e.do(req{method: http.MethodPost, path: "/api/auth/login", body: loginBody(wallet, sig)})
		if rec.Code != 401 || decode(t, rec)["error"] != "unauthorized" {
			t.Fatalf("%d %s", rec.Code, rec.Body)
		}
	})
	t.Run("reused nonce", func(t *testing.T) {
		_, sig := e.signNonce(merchant, wallet)
		body := loginBody(wallet, sig)
		if rec := e.do(req{method: http.MethodPost, path: "/api/auth/login", body: body}); rec.Code != 200 {
			t.Fatalf("first use: %d", rec.Code)
		}
		if rec := e.do(req{method: http.MethodPost, path: "/api/auth/login", body: body}); rec.Code != 401 {
			t.Fatalf("second use: %d %s", rec.Code, rec.Body)
		}
	})
	// A failed attempt does not consume the nonce (issue 30, finding 3: anyone could otherwise
	// block a wallet's login); the wallet's own signature then signs in, once.
	t.Run("nonce kept by a failed attempt", func(t *testing.T) {
		nonce, sig := e.signNonce(merchant, wallet)
		bad := `{"wallet":"` + wallet + `","nonce":"` + nonce + `","signature":"0x` + strings.Repeat("11", 65) + `"}`
		if rec := e.do(req{method: http.MethodPost, path: "/api/auth/login", body: bad}); rec.Code != 401 {
			t.Fatalf("bad signature: %d", rec.Code)
		}
		good := `{"wallet":"` + wallet + `","nonce":"` + nonce + `","signature":"` + sig + `"}`
		if rec := e.do(req{method: http.MethodPost, path: "/api/auth/login", body: good}); rec.Code != 200 {
			t.Fatalf("the wallet's login after someone's failed attempt: %d %s", rec.Code, rec.Body)
		}
		if rec := e.do(req{method: http.MethodPost, path: "/api/auth/login", body: good}); rec.Code != 401 {
			t.Fatalf("the nonce used twice: %d", rec.Code)
		}
	})
	t.Run("expired nonce", func(t *testing.T) {
		_, sig := e.signNonce(merchant, wallet)
		e.clk.Advance(5*time.Minute + time.Second)
		if rec := e.do(req{method: http.MethodPost, path: "/api/auth/login", body: loginBody(wallet, sig)}); rec.Code != 401 {
			t.Fatalf("expired: %d %s", rec.Code, rec.Body)
		}
	})
	t.Run("bad input", func(t *testing.T) {
		for _, body := range []string{`{"wallet":"0x12"}`, `{"wallet":"` + wallet + `"}`, `not json`} {
			if rec := e.do(req{method: http.MethodPost, path: "/api/auth/login", body: body}); rec.Code != 400 {
				t.Errorf("%s: %d", body, rec.Code)
			}
		}
		if rec := e.do(req{method: http.MethodPost, path: "/api/auth/nonce", body: `{"wallet":"nope"}`}); rec.Code != 400 {
			t.Errorf("nonce for a bad wallet: %d", rec.Code)
		}
	})
	t.Run("logout clears both cookies", func(t *testing.T) {
		rec := e.do(req{method: http.MethodPost, path: "/api/auth/logout"})
		cleared := 0
		for _, c := range rec.Result().Cookies() {
			if (c.Name == SessionCookie || c.Name == CSRFCookie) && c.MaxAge < 0 {
				cleared++
			}
		}
		if rec.Code != 200 || cleared != 2 {
			t.Fatalf("logout: %d, %d cookies cleared", rec.Code, cleared)
		}
	})
}

func TestJWTTampering(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	wallet := walletOf(e.admin)
	now := e.clk.Now()
	claimsFor := func(exp time.Time, iss string, aud ...string) sessionClaims {
		return sessionClaims{Roles: []string{RoleMerchant, RoleAdmin}, RegisteredClaims: jwt.RegisteredClaims{
			Subject: wallet, IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(exp), ID: "control",
			Issuer: iss, Audience: aud}}
	}
	claims := func(exp time.Time) sessionClaims { return claimsFor(exp, "payledger", "pay.example") }
	sign := func(m jwt.SigningMethod, key any, c sessionClaims) string {
		s, err := jwt.NewWithClaims(m, c).SignedString(key)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	good := sign(jwt.SigningMethodHS256, []byte(testJWTSecret), claims(now.Add(time.Hour)))
	parts := strings.Split(good, ".")
	otherPayload := strings.Split(sign(jwt.SigningMethodHS256, []byte("x"), sessionClaims{RegisteredClaims: jwt.RegisteredClaims{
		Subject: "0x" + strings.Repeat("cd", 20), ExpiresAt: jwt.NewNumericDate(now.Add(time.Hour))}}), ".")[1]
	cases := map[string]string{
		"alg none":     sign(jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, claims(now.Add(time.Hour))),
		"wrong secret": sign(jwt.SigningMethodHS256, []byte("another-secret-another-secret-xx"), claims(now.Add(time.Hour))),
		"HS512":        sign(jwt.SigningMethodHS512, []byte(testJWTSecret), claims(now.Add(time.Hour))),
		"expired":      sign(jwt.SigningMethodHS256, []byte(testJWTSecret), claims(now.Add(-time.Second))),
		"altered":      parts[0] + "." + otherPayload + "." + parts[2],
		// Signed with the same secret by another deployment (stop 60: iss and aud were not set
		// nor checked), or by something that is not a session's issuer.
		"another deployment": sign(jwt.SigningMethodHS256, []byte(testJWTSecret), claimsFor(now.Add(time.Hour), "payledger", "staging.example")),
		"no audience":        sign(jwt.SigningMethodHS256, []byte(testJWTSecret), claimsFor(now.Add(time.Hour), "payledger")),
		"another issuer":     sign(jwt.SigningMethodHS256, []byte(testJWTSecret), claimsFor(now.Add(time.Hour), "someone", "pay.example")),
		"garbage":            "not.a.jwt",
	}
	for name, tok := range cases {
		rec := e.do(req{method: http.MethodGet, path: "/api/auth/me", cookies: []*http.Cookie{{Name: SessionCookie, Value: tok}}})
		if env := decode(t, rec); rec.Code != 401 || env["message"] != "JWT authentication failed" {
			t.Errorf("%s: %d %v", name, rec.Code, env)
		}
	}
	if rec := e.do(req{method: http.MethodGet, path: "/api/auth/me", cookies: []*http.Cookie{{Name: SessionCookie, Value: good}}}); rec.Code != 200 {
		t.Fatalf("control token refused: %d %s", rec.Code, rec.Body)
	}
	e.clk.Advance(2 * time.Hour)
	if rec := e.do(req{method: http.MethodGet, path: "/api/auth/me", cookies: []*http.Cookie{{Name: SessionCookie, Value: good}}}); rec.Code != 401 {
		t.Fatalf("token accepted after expiry: %d", rec.Code)
	}
}

func TestCSRFMustMatchTheSession(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	cookies, csrf := e.login(e.admin)
	body := `{"name":"k","scopes":["orders:create"]}`
	// A cb_csrf cookie and header an attacker planted together do not match the session's token.
	planted := []*http.Cookie{cookies[0], {Name: CSRFCookie, Value: "attacker"}}
	for _, c := range cookies {
		if c.Name == SessionCookie {
			planted[0] = c
		}
	}
	if rec := e.do(req{method: http.MethodPost, path: "/api/admin/keys", body: body, cookies: planted, header: map[string]string{CSRFHeader: "attacker"}}); rec.Code != 403 {
		t.Fatalf("planted csrf pair: %d", rec.Code)
	}
	if rec := e.do(req{method: http.MethodPost, path: "/api/admin/keys", body: body, cookies: cookies, header: map[string]string{CSRFHeader: csrf + "x"}}); rec.Code != 403 {
		t.Fatalf("wrong header: %d", rec.Code)
	}
	if rec := e.do(req{method: http.MethodPost, path: "/api/admin/keys", body: body, cookies: cookies, header: map[string]string{CSRFHeader: csrf}}); rec.Code != 201 {
		t.Fatalf("right header: %d %s", rec.Code, rec.Body)
	}
}

func TestWalletHeadersNeverIdentify(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	for _, h := range []string{"x-wallet", "wallet"} {
		rec := e.do(req{method: http.MethodGet, path: "/api/status/ping", header: map[string]string{h: walletOf(e.admin)}})
		if rec.Code != 403 || decode(t, rec)["error"] != "forbidden" {
			t.Errorf("%s only: %d %s", h, rec.Code, rec.Body)
		}
	}
	mine := "0x" + strings.Repeat("12", 20)
	key := e.key(mine, "receipts:read")
	rec := e.do(req{method: http.MethodGet, path: "/api/status/ping", header: map[string]string{
		"Ocp-Apim-Subscription-Key": key, "x-wallet": walletOf(e.admin), "wallet": walletOf(e.admin)}})
	if env := decode(t, rec); rec.Code != 200 || env["wallet"] != mine {
		t.Fatalf("spoofed wallet header changed identity: %d %v", rec.Code, env)
	}
}

func TestGatewayMode(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(d *testDeps) { d.Config.GatewayMode = true })
	wallet := "0x" + strings.Repeat("34", 20)
	secret, key, err := e.keys.Create(context.Background(), wallet, "gw", []string{"receipts:read"})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		header map[string]string
		want   int
	}{
		{"stamped by the gateway", map[string]string{"x-edge-secret": testEdgeSecret, "x-subscription-id": key.ID.String()}, 200},
		{"no edge secret", map[string]string{"x-subscription-id": key.ID.String()}, 403},
		{"wrong edge secret", map[string]string{"x-edge-secret": "guess", "x-subscription-id": key.ID.String()}, 403},
		{"unknown subscription", map[string]string{"x-edge-secret": testEdgeSecret, "x-subscription-id": uuid.NewString()}, 401},
		{"no subscription id", map[string]string{"x-edge-secret": testEdgeSecret}, 401},
		{"direct key without the edge", map[string]string{"Ocp-Apim-Subscription-Key": secret}, 403},
		{"wallet header", map[string]string{"x-edge-secret": testEdgeSecret, "x-wallet": wallet}, 401},
	}
	for _, c := range cases {
		rec := e.do(req{method: http.MethodGet, path: "/api/status/ping", header: c.header})
		if rec.Code != c.want {
			t.Errorf("%s: %d %s, want %d", c.name, rec.Code, rec.Body, c.want)
		}
		if c.want == 200 && decode(t, rec)["wallet"] != wallet {
			t.Errorf("%s: wrong wallet %s", c.name, rec.Body)
		}
	}
}

func TestKeysAdminAndCrossMerchant(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	alice, _ := crypto.GenerateKey()
	bob, _ := crypto.GenerateKey()
	aCookies, aCSRF := e.login(alice)
	bCookies, bCSRF := e.login(bob)
	rec := e.do(req{method: http.MethodPost, path: "/api/admin/keys", body: `{"name":"pos","scopes":["orders:create","receipts:read"]}`,
		cookies: aCookies, header: map[string]string{CSRFHeader: aCSRF}})
	if rec.Code != 201 {
		t.Fatalf("create: %d %s", rec.Code, rec.Body)
	}
	created := decode(t, rec)
	secret := created["key"].(string)
	id := created["apiKey"].(map[string]any)["id"].(string)
	if !strings.HasPrefix(secret, "plk_") {
		t.Fatalf("key %q", secret)
	}
	var stored int
	if err := e.pool.QueryRow(context.Background(), `SELECT count(*) FROM api_keys WHERE key_hash = sha256($1::bytea)`, []byte(secret)).Scan(&stored); err != nil || stored != 1 {
		t.Fatalf("key not stored as its SHA-256: %d %v", stored, err)
	}
	var plain int
	_ = e.pool.QueryRow(context.Background(), `SELECT count(*) FROM api_keys WHERE position($1 in prefix) > 0 AND length(prefix) > 12`, secret).Scan(&plain)
	if plain != 0 {
		t.Fatal("secret stored in clear")
	}
	ping := func() int {
		return e.do(req{method: http.MethodGet, path: "/api/status/ping", header: map[string]string{"x-api-key": secret}}).Code
	}
	if ping() != 200 {
		t.Fatal("new key does not work")
	}
	list := decode(t, e.do(req{method: http.MethodGet, path: "/api/admin/keys", cookies: aCookies}))
	if keys := list["keys"].([]any); len(keys) != 1 || strings.Contains(e.do(req{method: http.MethodGet, path: "/api/admin/keys", cookies: aCookies}).Body.String(), secret) {
		t.Fatalf("list: %v", list)
	}
	if keys := decode(t, e.do(req{method: http.MethodGet, path: "/api/admin/keys", cookies: bCookies}))["keys"].([]any); len(keys) != 0 {
		t.Fatalf("bob sees alice's keys: %v", keys)
	}
	if rec := e.do(req{method: http.MethodDelete, path: "/api/admin/keys/" + id, cookies: bCookies, header: map[string]string{CSRFHeader: bCSRF}}); rec.Code != 404 {
		t.Fatalf("bob revoking alice's key: %d", rec.Code)
	}
	if ping() != 200 {
		t.Fatal("alice's key stopped working after bob's attempt")
	}
	if rec := e.do(req{method: http.MethodDelete, path: "/api/admin/keys/" + id, cookies: aCookies, header: map[string]string{CSRFHeader: aCSRF}}); rec.Code != 200 {
		t.Fatalf("revoke: %d", rec.Code)
	}
	if ping() != 401 {
		t.Fatal("revoked key still works")
	}
	for _, body := range []string{`{"name":"x","scopes":[]}`, `{"name":"x","scopes":["root"]}`, `{"scopes":["orders:create","orders:create"]}`} {
		if rec := e.do(req{method: http.MethodPost, path: "/api/admin/keys", body: body, cookies: aCookies, header: map[string]string{CSRFHeader: aCSRF}}); rec.Code != 400 {
			t.Errorf("%s: %d", body, rec.Code)
		}
	}
}

func TestCronSecret(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	e.srv.handle(http.MethodPost, "/api/cron/test", Policy{Access: Cron}, func(c echo.Context) error {
		return c.JSON(200, map[string]bool{"ok": true})
	})
	for secret, want := range map[string]int{"": 401, "wrong": 401, testCronSecret + "x": 401, testCronSecret: 200} {
		h := map[string]string{}
		if secret != "" {
			h["x-cron-secret"] = secret
		}
		if rec := e.do(req{method: http.MethodPost, path: "/api/cron/test", header: h}); rec.Code != want {
			t.Errorf("secret %q: %d, want %d", secret, rec.Code, want)
		}
	}
}
