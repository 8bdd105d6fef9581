package transport

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/readmodels"
)

// Tests of the security contracts of DESIGN 9, one per finding of issue 30 (docs/security.md
// lists which test guards which finding).

func (e *env) me(cookies []*http.Cookie) int {
	e.t.Helper()
	return e.do(req{method: http.MethodGet, path: "/api/auth/me", cookies: cookies}).Code
}

// Finding 7: after logout the old cookie no longer answers /api/auth/me; logout-all ends every
// session of the wallet, on every device.
func TestLogoutEndsTheSessionOnTheServer(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	priv, _ := crypto.GenerateKey()
	cookies, _ := e.login(priv)
	if code := e.me(cookies); code != 200 {
		t.Fatalf("me before logout: %d", code)
	}
	if rec := e.do(req{method: http.MethodPost, path: "/api/auth/logout", cookies: cookies}); rec.Code != 200 {
		t.Fatalf("logout: %d %s", rec.Code, rec.Body)
	}
	if code := e.me(cookies); code != 401 {
		t.Fatalf("the logged-out cookie still answers /api/auth/me: %d", code)
	}
	// Logging out again with the dead cookie is harmless.
	if rec := e.do(req{method: http.MethodPost, path: "/api/auth/logout", cookies: cookies}); rec.Code != 200 {
		t.Fatalf("second logout: %d %s", rec.Code, rec.Body)
	}
	if fresh, _ := e.login(priv); e.me(fresh) != 200 {
		t.Fatal("a new login after logout does not answer /api/auth/me")
	}
}

func TestLogoutAllEndsEverySessionOfTheWallet(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	priv, _ := crypto.GenerateKey()
	laptop, csrf := e.login(priv)
	phone, _ := e.login(priv)
	other, _ := crypto.GenerateKey()
	otherCookies, _ := e.login(other)
	if rec := e.do(req{method: http.MethodPost, path: "/api/auth/logout-all", cookies: laptop}); rec.Code != 403 {
		t.Fatalf("logout-all without CSRF: %d %s", rec.Code, rec.Body)
	}
	if rec := e.adminCall(laptop, csrf, http.MethodPost, "/api/auth/logout-all", ""); rec.Code != 200 {
		t.Fatalf("logout-all: %d %s", rec.Code, rec.Body)
	}
	for name, c := range map[string][]*http.Cookie{"laptop": laptop, "phone": phone} {
		if code := e.me(c); code != 401 {
			t.Errorf("%s session after logout-all: %d", name, code)
		}
	}
	if code := e.me(otherCookies); code != 200 {
		t.Errorf("another wallet's session after logout-all: %d", code)
	}
	e.clk.Advance(sessionClockSkew + time.Second) // past logout-all's cutoff, which covers the instances' clock skew
	fresh, _ := e.login(priv)
	if code := e.me(fresh); code != 200 {
		t.Errorf("a login after logout-all: %d", code)
	}
}

// Finding 3: a login without a valid signature consumes nothing; the wallet's own login with the
// nonce it signed then succeeds.
func TestFailedLoginDoesNotConsumeTheVictimsNonce(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	victim, _ := crypto.GenerateKey()
	wallet := walletOf(victim)
	_, sig := e.signNonce(victim, wallet)
	for _, body := range []string{loginBody(wallet, "0x00"), loginBody(wallet, "0x"+strings.Repeat("11", 65))} {
		if rec := e.do(req{method: http.MethodPost, path: "/api/auth/login", body: body}); rec.Code != 401 {
			t.Fatalf("attacker's login: %d %s", rec.Code, rec.Body)
		}
	}
	// Nonces the attacker asks for the victim's wallet do not shadow the one the victim signed.
	e.do(req{method: http.MethodPost, path: "/api/auth/nonce", body: `{"wallet":"` + wallet + `"}`})
	rec := e.do(req{method: http.MethodPost, path: "/api/auth/login", body: loginBody(wallet, sig)})
	if rec.Code != 200 {
		t.Fatalf("the victim's login after the attack: %d %s", rec.Code, rec.Body)
	}
	if rec := e.do(req{method: http.MethodPost, path: "/api/auth/login", body: loginBody(wallet, sig)}); rec.Code != 401 {
		t.Fatalf("the same signature twice: %d %s", rec.Code, rec.Body)
	}
}

// Finding 12 (nonces): expired login nonces are deleted.
func TestExpiredNoncesAreDeleted(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	priv, _ := crypto.GenerateKey()
	old, _ := e.signNonce(priv, walletOf(priv))
	e.clk.Advance(nonceTTL + time.Second)
	e.signNonce(priv, walletOf(priv))
	var n int
	if err := e.pool.QueryRow(context.Background(), `SELECT count(*) FROM auth_nonces WHERE nonce = $1`, old).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("the expired nonce is still stored")
	}
}

// Finding 2: another merchant's shop by slug shows only the public fields.
func TestShopConfigBySlugOfAnotherMerchantIsPublicFieldsOnly(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	a, b := e.merchant(false), e.merchant(false)
	rec := e.adminCall(a.cookies, a.csrf, http.MethodPost, "/api/shop/config",
		`{"slug":"shop-a","name":"Shop A","bio":"hi","webhookUrl":"https://hooks.example/charges?token=s3cret"}`)
	if rec.Code != 200 {
		t.Fatalf("shop A: %d %s", rec.Code, rec.Body)
	}
	got := decode(t, e.dev(b, http.MethodGet, "/api/shop/config?slug=shop-a", ""))["config"].(map[string]any)
	for _, private := range []string{"webhookUrl", "brandKey", "processingFeePct", "xpPerDollar", "setupComplete", "createdAt", "updatedAt", "industryPackActivatedAt"} {
		if v, ok := got[private]; ok {
			t.Errorf("merchant B sees shop A's %s: %v", private, v)
		}
	}
	if got["name"] != "Shop A" || got["slug"] != "shop-a" || got["bio"] != "hi" {
		t.Errorf("the public fields: %v", got)
	}
	own := decode(t, e.dev(a, http.MethodGet, "/api/shop/config?slug=shop-a", ""))["config"].(map[string]any)
	if own["webhookUrl"] != "https://hooks.example/charges?token=s3cret" {
		t.Errorf("the owner's own config by slug: %v", own)
	}
}

// cutKeys answers as a key store whose database link is cut, once cut.
type cutKeys struct {
	KeyStore
	cut atomic.Bool
}

func (k *cutKeys) AuthenticateWithin(ctx context.Context, secret string, wait time.Duration) (readmodels.APIKey, error) {
	if k.cut.Load() {
		return readmodels.APIKey{}, syscall.ECONNREFUSED
	}
	return k.KeyStore.AuthenticateWithin(ctx, secret, wait)
}

// Finding 1 (in-process): degraded mode forgets a key revoked through this instance, a key the
// datastore refused, and every key after KEY_CACHE_TTL. (The same with a real cut link:
// cmd/payledger TestRevokedKeyStaysRevokedWhileTheDatastoreIsDown.)
func TestDegradedModeForgetsRevokedAndStaleKeys(t *testing.T) {
	t.Parallel()
	var keys *cutKeys
	e := newEnv(t, func(d *testDeps) {
		keys = &cutKeys{KeyStore: d.Keys}
		d.Keys = keys
		d.Config.KeyCacheTTL = time.Minute
	})
	m := e.merchant(false)
	other := e.key(m.wallet, Scopes...)
	ping := func(key string) int {
		return e.do(req{method: http.MethodGet, path: "/api/status/ping", header: map[string]string{"Ocp-Apim-Subscription-Key": key}}).Code
	}
	revoked, rk, err := e.keys.Create(context.Background(), m.wallet, "r", Scopes)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{m.key, other, revoked} {
		if code := ping(k); code != 200 {
			t.Fatalf("ping before the cut: %d", code)
		}
	}
	if rec := e.adminCall(m.cookies, m.csrf, http.MethodDelete, "/api/admin/keys/"+rk.ID.String(), ""); rec.Code != 200 {
		t.Fatalf("revoke: %d %s", rec.Code, rec.Body)
	}
	keys.cut.Store(true)
	if code := ping(revoked); code == 200 {
		t.Fatal("a key revoked through this instance works again while the datastore is down")
	}
	if code := ping(m.key); code != 200 {
		t.Fatalf("a live key while the datastore is down: %d", code)
	}
	e.clk.Advance(time.Minute)
	if code := ping(other); code == 200 {
		t.Fatal("a key not confirmed for KEY_CACHE_TTL still works while the datastore is down")
	}
}

// Finding 11: a NUL byte or invalid UTF-8 in a path or query value is 400, never 500.
func TestNULAndInvalidUTF8InPathOrQueryAre400(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(false)
	for _, path := range []string{"/portal/%00x", "/pay/%ffx", "/api/portal/%00x", "/api/portal/%c3x/request", "/api/receipts/%00x",
		"/api/receipts/%ff/events", "/api/receipts/status?receiptId=%00", "/api/users/search?q=%ff", "/api/shop/config?slug=%00a",
		"/api/subscriptions/plans?wallet=%ff", "/api/terminal/check-payment?receiptId=%ff", "/api/receipts?status=%00", "/api/split/transactions?address=%ff"} {
		// Not through e.do: TestMain's OpenAPI check of recorded exchanges cannot rebuild such a URL.
		hr := httptest.NewRequest(http.MethodGet, path, nil)
		hr.Header.Set("Ocp-Apim-Subscription-Key", m.key)
		rec := httptest.NewRecorder()
		e.srv.ServeHTTP(rec, hr)
		if rec.Code != 400 || decode(t, rec)["error"] != "invalid_input" {
			t.Errorf("GET %s: %d %s", path, rec.Code, rec.Body)
		}
	}
	if rec := e.dev(m, http.MethodGet, "/api/receipts/status?receiptId=caf%C3%A9", ""); rec.Code == 400 || rec.Code >= 500 {
		t.Errorf("valid UTF-8 refused: %d %s", rec.Code, rec.Body)
	}
}

// Finding 6: at most 500 items per order.
func TestOrderItemCap(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(true)
	e.item(m, `{"sku":"tea","name":"Tea","priceUsd":1}`)
	items := func(n int) string {
		return `{"items":[` + strings.TrimSuffix(strings.Repeat(`{"sku":"tea","qty":1},`, n), ",") + `]}`
	}
	rec := e.dev(m, http.MethodPost, "/api/orders", items(MaxOrderItems+1))
	if rec.Code != 400 || decode(t, rec)["error"] != "invalid_input" {
		t.Fatalf("501 items: %d %.300s", rec.Code, rec.Body)
	}
	if rec := e.dev(m, http.MethodPost, "/api/orders", items(MaxOrderItems)); rec.Code != 200 {
		t.Fatalf("500 items: %d %.300s", rec.Code, rec.Body)
	}
}

// Finding 4: behind TRUSTED_PROXIES the limiter keys on the client, not on the proxy; a client
// that is not a trusted proxy cannot choose its address with X-Forwarded-For.
func TestTrustedProxiesGiveEachClientItsOwnLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(d *testDeps) {
		d.Config.PublicLimitPerMinute = 3
		d.Config.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("10.0.0.0/24")}
	})
	get := func(remote, xff string) int {
		return e.do(req{method: http.MethodGet, path: "/api/subscriptions/plans?wallet=" + testPlatform, remote: remote,
			header: map[string]string{"X-Forwarded-For": xff}}).Code
	}
	for range 3 {
		if code := get("10.0.0.1:5000", "203.0.113.5"); code != 200 {
			t.Fatalf("client A through the proxy: %d", code)
		}
	}
	if code := get("10.0.0.1:5000", "203.0.113.5"); code != 429 {
		t.Fatalf("client A over its limit: %d", code)
	}
	if code := get("10.0.0.1:5001", "198.51.100.7, 203.0.113.6"); code != 200 {
		t.Fatalf("client B through the proxy, after A was limited: %d", code)
	}
	// Not through a trusted proxy: X-Forwarded-For is ignored.
	for i := range 3 {
		get("192.0.2.50:1", fmt.Sprintf("203.0.113.%d", 100+i))
	}
	if code := get("192.0.2.50:1", "203.0.113.200"); code != 429 {
		t.Fatalf("a direct client rotating X-Forwarded-For: %d", code)
	}
}

// Finding 9: two merchants may both use a receipt id; the second never learns of the first.
func TestCallerChosenReceiptIDsAreNamespacedPerMerchant(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	a, b := e.merchant(false), e.merchant(false)
	body := `{"id":"inv-1001","lineItems":[{"label":"a","priceUsd":1}],"totalUsd":1}`
	ra := e.dev(b, http.MethodPost, "/api/receipts", body)
	rb := e.dev(a, http.MethodPost, "/api/receipts", body)
	if ra.Code != 201 || rb.Code != 201 {
		t.Fatalf("the same id for two merchants: %d %s / %d %s", ra.Code, ra.Body, rb.Code, rb.Body)
	}
	idA := decode(t, rb)["receipt"].(map[string]any)["receiptId"].(string)
	idB := decode(t, ra)["receipt"].(map[string]any)["receiptId"].(string)
	if idA == idB || !strings.HasSuffix(idA, "_inv-1001") {
		t.Fatalf("ids %q and %q", idA, idB)
	}
	if rec := e.dev(a, http.MethodPost, "/api/receipts", body); rec.Code != 409 {
		t.Fatalf("the same id twice for one merchant: %d %s", rec.Code, rec.Body)
	}
	if rec := e.do(req{method: http.MethodGet, path: "/api/portal/inv-1001"}); rec.Code != 404 {
		t.Fatalf("the bare id on the portal: %d %s", rec.Code, rec.Body)
	}
	portal := decode(t, e.do(req{method: http.MethodGet, path: "/api/portal/" + idA}))["receipt"].(map[string]any)
	if portal["merchantWallet"] != a.wallet {
		t.Fatalf("portal of A's receipt: %v", portal)
	}
}

// Finding 12 (portal): the public receipt view never shows the merchant's metadata.
func TestPortalHidesMetadata(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(false)
	rec := e.dev(m, http.MethodPost, "/api/receipts", `{"lineItems":[{"label":"a","priceUsd":1}],"totalUsd":1,"metadata":{"customerEmail":"x@example.com"}}`)
	if rec.Code != 201 {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	id := decode(t, rec)["receipt"].(map[string]any)["receiptId"].(string)
	for _, path := range []string{"/api/portal/" + id, "/portal/" + id} {
		if got := e.do(req{method: http.MethodGet, path: path}); got.Code != 200 || strings.Contains(got.Body.String(), "x@example.com") ||
			strings.Contains(got.Body.String(), "customerEmail") {
			t.Errorf("%s: %d shows the metadata: %.300s", path, got.Code, got.Body)
		}
	}
	if got := e.dev(m, http.MethodGet, "/api/receipts/"+id, ""); !strings.Contains(got.Body.String(), "x@example.com") {
		t.Errorf("the merchant's own view lost its metadata: %s", got.Body)
	}
}

// Finding 12 (cron): wrong cron secrets are limited per client address; once over, even the
// right one waits for the minute to end.
func TestWrongCronSecretsAreRateLimited(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	cron := func(secret, remote string) int {
		return e.do(req{method: http.MethodPost, path: "/api/cron/reconcile", remote: remote, header: map[string]string{"x-cron-secret": secret}}).Code
	}
	limited := 0
	for i := range 150 {
		if cron(fmt.Sprintf("guess-%d", i), "192.0.2.9:1") == 429 {
			limited++
		}
	}
	if limited < 150-authFailuresPerMinute {
		t.Fatalf("%d of 150 wrong guesses got 429", limited)
	}
	if code := cron(testCronSecret, "192.0.2.9:1"); code != 429 {
		t.Fatalf("the right secret from a blocked address: %d", code)
	}
	if code := cron(testCronSecret, "192.0.2.10:1"); code != 200 {
		t.Fatalf("the right secret from another address: %d", code)
	}
	e.clk.Advance(time.Minute + time.Second)
	if code := cron(testCronSecret, "192.0.2.9:1"); code != 200 {
		t.Fatalf("the right secret after the minute: %d", code)
	}
}

// Finding 10 (processor webhook): a request without a signature is refused before its body is
// read, and wrong signatures are limited per client address.
func TestProcessorWebhookChecksTheSignatureHeaderFirst(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	read := &countingBody{r: strings.NewReader(`{"id":"evt_1"}`)}
	hr := httptest.NewRequest(http.MethodPost, "/api/processor/webhook", read)
	rec := httptest.NewRecorder()
	e.srv.ServeHTTP(rec, hr)
	if rec.Code != 401 || read.n != 0 {
		t.Fatalf("unsigned: %d, %d body bytes read", rec.Code, read.n)
	}
	limited := 0
	for range 30 {
		r := e.do(req{method: http.MethodPost, path: "/api/processor/webhook", body: `{}`, remote: "192.0.2.77:1",
			header: map[string]string{"Processor-Signature": "t=1,v1=00"}})
		if r.Code == 429 {
			limited++
		}
	}
	if limited < 30-authFailuresPerMinute {
		t.Fatalf("%d of 30 wrong signatures got 429", limited)
	}
}

type countingBody struct {
	r io.Reader
	n int
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	b.n += n
	return n, err
}

// Finding 5: invented method names do not become metric series (real HTTP clients against a
// running server).
func TestMetricsMethodLabelIsBounded(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	srv := httptest.NewServer(e.srv)
	defer srv.Close()
	long := strings.Repeat("X", 100<<10)
	for i := range 200 {
		method := fmt.Sprintf("M%dQ", i)
		if i%50 == 0 {
			method = long + strconv.Itoa(i)
		}
		r, err := http.NewRequest(method, srv.URL+"/api/receipts", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	resp, err := http.Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if strings.Contains(string(body), "M17Q") || strings.Contains(string(body), "XXXX") || len(body) > 1<<20 {
		t.Fatalf("invented methods became series (%d bytes of metrics)", len(body))
	}
	if !strings.Contains(string(body), `method="other"`) {
		t.Fatal(`no method="other" series`)
	}
}

// Finding 8: telemetry is limited per receipt and kept out of the receipt's stream, so it never
// lengthens what commands replay; the history still lists it.
func TestTelemetryIsLimitedAndOutOfTheReceiptStream(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(false)
	rec := e.dev(m, http.MethodPost, "/api/receipts", `{"lineItems":[{"label":"a","priceUsd":1}],"totalUsd":1}`)
	id := decode(t, rec)["receipt"].(map[string]any)["receiptId"].(string)
	codes := map[int]int{}
	for i := range commands.MaxTelemetryPerHour + 5 {
		r := e.do(req{method: http.MethodPost, path: "/api/portal/" + id + "/telemetry", remote: fmt.Sprintf("192.0.2.%d:1", i),
			body: `{"event":"error","code":"PORTAL_CHAIN_USER_REJECTED"}`})
		codes[r.Code]++
	}
	if codes[200] != commands.MaxTelemetryPerHour || codes[429] != 5 {
		t.Fatalf("answers %v, want %d x 200 then 429", codes, commands.MaxTelemetryPerHour)
	}
	h := decode(t, e.dev(m, http.MethodGet, "/api/receipts/"+id+"/events", ""))
	if evs := h["events"].([]any); len(evs) != 1 {
		t.Fatalf("the receipt's stream holds %d events, want only its generation", len(evs))
	}
	if tel, _ := h["telemetry"].([]any); len(tel) != commands.MaxTelemetryPerHour {
		t.Fatalf("history lists %d telemetry reports", len(tel))
	}
	e.clk.Advance(time.Hour)
	if r := e.do(req{method: http.MethodPost, path: "/api/portal/" + id + "/telemetry", body: `{"event":"link_opened"}`}); r.Code != 200 {
		t.Fatalf("the next hour: %d %s", r.Code, r.Body)
	}
}
