package transport

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/payledger/payledger/cmd/payledger/app"
)

// adminCall performs a state-changing admin request with the session and CSRF token.
func (e *env) adminCall(cookies []*http.Cookie, csrf, method, path, body string) *httptest.ResponseRecorder {
	return e.do(req{method: method, path: path, body: body, cookies: cookies, header: map[string]string{CSRFHeader: csrf}})
}

func (e *env) shopRows() int {
	var n int
	if err := e.pool.QueryRow(context.Background(), `SELECT count(*) FROM shop_configs`).Scan(&n); err != nil {
		e.t.Fatal(err)
	}
	return n
}

func TestShopConfig(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	merchant, _ := crypto.GenerateKey()
	wallet := walletOf(merchant)
	cookies, csrf := e.login(merchant)
	key := e.key(wallet, "shop:read")
	get := func(query string) (int, map[string]any) {
		rec := e.do(req{method: http.MethodGet, path: "/api/shop/config" + query, header: map[string]string{"Ocp-Apim-Subscription-Key": key}})
		return rec.Code, decode(t, rec)
	}
	if code, body := get(""); code != 404 || body["error"] != "not_found" {
		t.Fatalf("no config yet: %d %v, want 404 not_found rather than defaults", code, body)
	}
	bad := map[string]string{
		"arrangement":             `{"arrangement":"spiral"}`,
		"industryPack":            `{"industryPack":"casino"}`,
		"theme.logoShape":         `{"theme":{"logoShape":"hexagon"}}`,
		"theme.heroFontSize":      `{"theme":{"heroFontSize":"huge"}}`,
		"theme.primaryColor":      `{"theme":{"primaryColor":"red"}}`,
		"theme.accentColor":       `{"theme":{"accentColor":"#12345"}}`,
		"theme.brandLogoUrl":      `{"theme":{"brandLogoUrl":"ftp://x/y.png"}}`,
		"theme.coverPhotoUrl":     `{"theme":{"coverPhotoUrl":"javascript:alert(1)"}}`,
		"theme.brandLogoUrl http": `{"theme":{"brandLogoUrl":"http://cdn.example/logo.png"}}`,
		"links":                   `{"links":[{"label":"","url":"https://a.example"}]}`,
		"links url":               `{"links":[{"label":"x","url":"not a url"}]}`,
		"links count":             `{"links":[` + strings.Repeat(`{"label":"x","url":"https://a.example"},`, 20) + `{"label":"x","url":"https://a.example"}]}`,
		"slug":                    `{"slug":"Bad Slug"}`,
		"slug short":              `{"slug":"ab"}`,
		"xpPerDollar":             `{"xpPerDollar":-1}`,
		"processingFeePct":        `{"processingFeePct":10.5}`,
		"processingFeePct neg":    `{"processingFeePct":-0.1}`,
		"unknown field":           `{"colour":"blue"}`,
		"name type":               `{"name":42}`,
		"theme unknown":           `{"theme":{"glow":"yes"}}`,
	}
	for name, body := range bad {
		rec := e.adminCall(cookies, csrf, http.MethodPost, "/api/shop/config", body)
		if env := decode(t, rec); rec.Code != 400 || env["error"] != "invalid_input" || env["message"] == "" {
			t.Errorf("%s: %d %v", name, rec.Code, env)
		}
	}
	if n := e.shopRows(); n != 0 {
		t.Fatalf("bad requests wrote %d rows", n)
	}
	rec := e.adminCall(cookies, csrf, http.MethodPost, "/api/shop/config",
		`{"name":"Blue Bottle","slug":"blue-bottle","industryPack":"restaurant","processingFeePct":1.25,
		  "theme":{"primaryColor":"#0af","brandLogoUrl":"https://cdn.example/logo.png","logoShape":"circle"},
		  "links":[{"label":"Site","url":"https://blue.example"}],"xpPerDollar":2}`)
	if rec.Code != 200 {
		t.Fatalf("valid write: %d %s", rec.Code, rec.Body)
	}
	cfg := decode(t, rec)["config"].(map[string]any)
	if cfg["industryPackActivatedAt"] == nil || cfg["createdAt"] == nil || cfg["theme"].(map[string]any)["logoShape"] != "circle" {
		t.Fatalf("config %v", cfg)
	}
	// A subset keeps everything else.
	rec = e.adminCall(cookies, csrf, http.MethodPost, "/api/shop/config", `{"bio":"coffee","theme":{"textColor":"#111111"}}`)
	cfg = decode(t, rec)["config"].(map[string]any)
	if cfg["name"] != "Blue Bottle" || cfg["bio"] != "coffee" || cfg["theme"].(map[string]any)["primaryColor"] != "#0af" {
		t.Fatalf("partial update lost fields: %v", cfg)
	}
	if code, body := get(""); code != 200 || body["config"].(map[string]any)["slug"] != "blue-bottle" {
		t.Fatalf("read back: %d %v", code, body)
	}
	if code, body := get("?slug=blue-bottle"); code != 200 || body["config"].(map[string]any)["name"] != "Blue Bottle" {
		t.Fatalf("by slug: %d %v", code, body)
	}
	if code, _ := get("?slug=nobody-here"); code != 404 {
		t.Fatalf("unknown slug: %d", code)
	}
	// Another merchant cannot take the slug.
	rival, _ := crypto.GenerateKey()
	rc, rcsrf := e.login(rival)
	if rec := e.adminCall(rc, rcsrf, http.MethodPost, "/api/shop/config", `{"name":"Rival","slug":"blue-bottle"}`); rec.Code != 409 || decode(t, rec)["error"] != "conflict" {
		t.Fatalf("taken slug: %d %s", rec.Code, rec.Body)
	}
	if n := e.shopRows(); n != 1 {
		t.Fatalf("slug conflict wrote a row: %d rows", n)
	}
	// Wallet headers are ignored: the signed-in wallet is written.
	rec = e.do(req{method: http.MethodPost, path: "/api/shop/config", body: `{"name":"Mine"}`, cookies: rc,
		header: map[string]string{CSRFHeader: rcsrf, "x-wallet": wallet}})
	if rec.Code != 200 {
		t.Fatalf("rival write: %d", rec.Code)
	}
	if _, body := get(""); body["config"].(map[string]any)["name"] != "Blue Bottle" {
		t.Fatal("x-wallet header redirected a write to another merchant")
	}
}

func TestSiteConfig(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	rec := e.do(req{method: http.MethodGet, path: "/api/site/config"})
	if body := decode(t, rec); rec.Code != 200 || body["defaultPaymentToken"] != "USDC" || body["processingFeePct"] != nil {
		t.Fatalf("defaults: %d %v", rec.Code, body)
	}
	merchant, _ := crypto.GenerateKey()
	mc, mcsrf := e.login(merchant)
	if rec := e.adminCall(mc, mcsrf, http.MethodPost, "/api/site/config", `{"defaultPaymentToken":"ETH"}`); rec.Code != 403 {
		t.Fatalf("a merchant changed platform defaults: %d", rec.Code)
	}
	ac, acsrf := e.login(e.admin)
	for _, body := range []string{`{"defaultPaymentToken":"DOGE"}`, `{"processingFeePct":11}`, `{"reserveRatios":{"USDC":1.5}}`, `{"theme":{"primaryColor":"blue"}}`} {
		if rec := e.adminCall(ac, acsrf, http.MethodPost, "/api/site/config", body); rec.Code != 400 {
			t.Errorf("%s: %d", body, rec.Code)
		}
	}
	rec = e.adminCall(ac, acsrf, http.MethodPost, "/api/site/config", `{"processingFeePct":0.75,"defaultPaymentToken":"cbBTC","reserveRatios":{"USD":0.1},"theme":{"brandName":"Pay"}}`)
	if rec.Code != 200 {
		t.Fatalf("admin write: %d %s", rec.Code, rec.Body)
	}
	body := decode(t, e.do(req{method: http.MethodGet, path: "/api/site/config"}))
	if body["processingFeePct"] != 0.75 || body["defaultPaymentToken"] != "cbBTC" || body["theme"].(map[string]any)["brandName"] != "Pay" {
		t.Fatalf("read back %v", body)
	}
	gated := newEnv(t, func(d *testDeps) { d.Config.SiteConfigRequiresKey = true })
	if rec := gated.do(req{method: http.MethodGet, path: "/api/site/config"}); rec.Code != 401 {
		t.Fatalf("SITE_CONFIG_REQUIRES_KEY without a key: %d", rec.Code)
	}
}

func TestSplit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	merchant, _ := crypto.GenerateKey()
	wallet := walletOf(merchant)
	cookies, csrf := e.login(merchant)
	key := e.key(wallet, "split:read")
	getSplit := func() map[string]any {
		rec := e.do(req{method: http.MethodGet, path: "/api/split/deploy", header: map[string]string{"Ocp-Apim-Subscription-Key": key}})
		if rec.Code != 200 {
			t.Fatalf("get split: %d", rec.Code)
		}
		return decode(t, rec)["split"].(map[string]any)
	}
	if s := getSplit(); s["address"] != nil || len(s["recipients"].([]any)) != 0 {
		t.Fatalf("unconfigured: %v", s)
	}
	contract := "0x" + strings.Repeat("c", 40)
	other := "0x" + strings.Repeat("d", 40)
	bad := map[string]struct {
		body, code string
	}{
		"no address":     {`{}`, "invalid_input"},
		"bad address":    {`{"splitAddress":"0x1"}`, "invalid_input"},
		"sum below":      {`{"splitAddress":"` + contract + `","recipients":[{"address":"` + wallet + `","sharesBps":5000},{"address":"` + other + `","sharesBps":4999}]}`, "invalid_input"},
		"sum above":      {`{"splitAddress":"` + contract + `","recipients":[{"address":"` + wallet + `","sharesBps":5001},{"address":"` + other + `","sharesBps":5000}]}`, "invalid_input"},
		"fractional bps": {`{"splitAddress":"` + contract + `","recipients":[{"address":"` + wallet + `","sharesBps":9999.5},{"address":"` + other + `","sharesBps":0.5}]}`, "invalid_input"},
		"zero bps":       {`{"splitAddress":"` + contract + `","recipients":[{"address":"` + wallet + `","sharesBps":10000},{"address":"` + other + `","sharesBps":0}]}`, "invalid_input"},
		"bad recipient":  {`{"splitAddress":"` + contract + `","recipients":[{"address":"me","sharesBps":10000}]}`, "invalid_input"},
		"empty list":     {`{"splitAddress":"` + contract + `","recipients":[]}`, "invalid_input"},
	}
	for name, c := range bad {
		rec := e.adminCall(cookies, csrf, http.MethodPost, "/api/split/deploy", c.body)
		if env := decode(t, rec); rec.Code != 400 || env["error"] != c.code {
			t.Errorf("%s: %d %v", name, rec.Code, env)
		}
	}
	if s := getSplit(); s["address"] != nil {
		t.Fatal("a rejected request configured the split")
	}
	// Two concurrent first calls: one configuration.
	var wg sync.WaitGroup
	results := make([]map[string]any, 2)
	bodies := []string{
		`{"splitAddress":"` + contract + `"}`,
		`{"splitAddress":"` + contract + `","recipients":[{"address":"` + wallet + `","sharesBps":7000},{"address":"` + other + `","sharesBps":3000}]}`,
	}
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rec := e.adminCall(cookies, csrf, http.MethodPost, "/api/split/deploy", bodies[i])
			if rec.Code != 200 {
				t.Errorf("concurrent configure %d: %d %s", i, rec.Code, rec.Body)
				return
			}
			results[i] = decode(t, rec)
		}()
	}
	wg.Wait()
	idempotent := 0
	for _, r := range results {
		if r["idempotent"] == true {
			idempotent++
		}
	}
	if idempotent != 1 {
		t.Fatalf("%d of 2 concurrent first calls were idempotent, want 1: %v", idempotent, results)
	}
	winner := getSplit()
	var events int
	_ = e.pool.QueryRow(context.Background(), `SELECT count(*) FROM events WHERE stream_id = $1`, "split-"+wallet).Scan(&events)
	if events != 1 {
		t.Fatalf("%d split events, want 1", events)
	}
	again := decode(t, e.adminCall(cookies, csrf, http.MethodPost, "/api/split/deploy", `{"splitAddress":"`+other+`"}`))
	if again["idempotent"] != true || again["split"].(map[string]any)["address"] != winner["address"] {
		t.Fatalf("later call changed the split: %v", again)
	}
	// The default: merchant 9,950 and platform 50.
	m2, _ := crypto.GenerateKey()
	c2, csrf2 := e.login(m2)
	// A split contract belongs to one merchant (DESIGN 9): the first merchant's is refused.
	if rec := e.adminCall(c2, csrf2, http.MethodPost, "/api/split/deploy", `{"splitAddress":"`+contract+`"}`); rec.Code != 409 || decode(t, rec)["error"] != "conflict" {
		t.Fatalf("another merchant's split: %d %s", rec.Code, rec.Body)
	}
	rec := e.adminCall(c2, csrf2, http.MethodPost, "/api/split/deploy", `{"splitAddress":"0x`+strings.Repeat("e", 40)+`"}`)
	rs := decode(t, rec)["split"].(map[string]any)["recipients"].([]any)
	if len(rs) != 2 || rs[0].(map[string]any)["sharesBps"] != 9950.0 || rs[1].(map[string]any)["address"] != testPlatform {
		t.Fatalf("default split %v", rs)
	}
	noPlatform := newAppEnv(t, func(c *app.Config) { c.PlatformRecipient = "" }, nil, nil)
	c3, csrf3 := noPlatform.login(m2)
	if rec := noPlatform.adminCall(c3, csrf3, http.MethodPost, "/api/split/deploy", `{"splitAddress":"`+contract+`"}`); rec.Code != 400 || decode(t, rec)["error"] != "platform_recipient_not_configured" {
		t.Fatalf("default without platform: %d %s", rec.Code, rec.Body)
	}
}

func TestWithdrawIsGoneForEveryone(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	rec := e.do(req{method: http.MethodPost, path: "/api/split/withdraw", body: `{}`})
	body := decode(t, rec)
	if rec.Code != 410 || body["error"] != "deprecated" || body["reason"] != "use_connected_wallet" || body["message"] == "" {
		t.Fatalf("%d %v", rec.Code, body)
	}
}

func TestTaxCatalog(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	key := e.key("0x"+strings.Repeat("e", 40), "orders:create")
	h := map[string]string{"Ocp-Apim-Subscription-Key": key}
	all := decode(t, e.do(req{method: http.MethodGet, path: "/api/tax/catalog", header: h}))["jurisdictions"].([]any)
	if len(all) < 51+27 {
		t.Fatalf("catalog has %d jurisdictions, want every US state, DC and the EU", len(all))
	}
	ca := decode(t, e.do(req{method: http.MethodGet, path: "/api/tax/catalog?jurisdiction=us-ca", header: h}))["jurisdictions"].([]any)
	if len(ca) != 1 || ca[0].(map[string]any)["totalRate"] != 0.0725 || len(ca[0].(map[string]any)["components"].([]any)) != 3 {
		t.Fatalf("US-CA: %v", ca)
	}
	de := decode(t, e.do(req{method: http.MethodGet, path: "/api/tax/catalog?jurisdiction=EU-DE", header: h}))["jurisdictions"].([]any)
	if len(de) != 1 || de[0].(map[string]any)["totalRate"] != 0.19 {
		t.Fatalf("DE: %v", de)
	}
}
