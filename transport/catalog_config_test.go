package transport

import (
	"net/http"
	"strings"
	"sync"
	"testing"
)

// Two admins changing different site fields at the same moment both keep their change: the
// handler read the configuration and saved the whole of it later, so the second save put back
// the field the first had just changed (17 of 20 rounds lost one).
func TestCatalogSiteConfigConcurrentWritesKeepBoth(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	ac, acsrf := e.login(e.admin)
	post := func(body string) {
		if rec := e.adminCall(ac, acsrf, http.MethodPost, "/api/site/config", body); rec.Code != 200 {
			t.Errorf("%s: %d %s", body, rec.Code, rec.Body)
		}
	}
	for round := range 20 {
		post(`{"defaultPaymentToken":"USDC","processingFeePct":null}`)
		var wg sync.WaitGroup
		wg.Go(func() { post(`{"defaultPaymentToken":"ETH"}`) })
		wg.Go(func() { post(`{"processingFeePct":0.7}`) })
		wg.Wait()
		got := decode(t, e.do(req{method: http.MethodGet, path: "/api/site/config"}))
		if got["defaultPaymentToken"] != "ETH" || got["processingFeePct"] != 0.7 {
			t.Fatalf("round %d: a concurrent write was lost: %v", round, got)
		}
	}
}

// A site theme write changes the theme fields it gives and keeps the others, as a shop's does;
// a field out of bounds (length, control characters, URL) is 400 invalid_input and changes nothing.
func TestCatalogSiteThemeIsPatchedAndBounded(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	ac, acsrf := e.login(e.admin)
	theme := func() map[string]any {
		return decode(t, e.do(req{method: http.MethodGet, path: "/api/site/config"}))["theme"].(map[string]any)
	}
	if rec := e.adminCall(ac, acsrf, http.MethodPost, "/api/site/config",
		`{"theme":{"brandName":"Pay","primaryColor":"#fff","brandLogoUrl":"https://cdn.example/l.png"}}`); rec.Code != 200 {
		t.Fatalf("first write: %d %s", rec.Code, rec.Body)
	}
	if rec := e.adminCall(ac, acsrf, http.MethodPost, "/api/site/config", `{"theme":{"secondaryColor":"#000"}}`); rec.Code != 200 {
		t.Fatalf("second write: %d %s", rec.Code, rec.Body)
	}
	want := map[string]any{"brandName": "Pay", "primaryColor": "#fff", "brandLogoUrl": "https://cdn.example/l.png", "secondaryColor": "#000"}
	got := theme()
	for k, v := range want {
		if got[k] != v {
			t.Fatalf("theme after a one-field write: %v, want %s = %v kept", got, k, v)
		}
	}
	for name, body := range map[string]string{
		"theme.brandName":            `{"theme":{"brandName":"` + strings.Repeat("n", 201) + `"}}`,
		"theme.brandName escape":     `{"theme":{"brandName":"Pay\u001b[2J"}}`,
		"theme.brandName override":   `{"theme":{"brandName":"Pay\u202eyaP"}}`,
		"theme.fontFamily":           `{"theme":{"fontFamily":"` + strings.Repeat("f", 101) + `"}}`,
		"theme.brandFaviconUrl":      `{"theme":{"brandFaviconUrl":"https://cdn.example/` + strings.Repeat("a", 2000) + `"}}`,
		"theme.receiptBackgroundUrl": `{"theme":{"receiptBackgroundUrl":"javascript:alert(1)"}}`,
	} {
		rec := e.adminCall(ac, acsrf, http.MethodPost, "/api/site/config", `{"defaultPaymentToken":"ETH",`+body[1:])
		env := decode(t, rec)
		if rec.Code != 400 || env["error"] != "invalid_input" || !strings.HasPrefix(env["message"].(string), strings.Fields(name)[0]+" ") {
			t.Errorf("%s: %d %v", name, rec.Code, env)
		}
	}
	if cfg := decode(t, e.do(req{method: http.MethodGet, path: "/api/site/config"})); cfg["defaultPaymentToken"] != "USDC" {
		t.Fatalf("a refused write changed the site: %v", cfg)
	}
	if rec := e.adminCall(ac, acsrf, http.MethodPost, "/api/site/config", `{"theme":{"brandName":"決済サービス`+strings.Repeat("の", 100)+`"}}`); rec.Code != 200 {
		t.Fatalf("a 106-character Japanese brand name: %d %s", rec.Code, rec.Body)
	}
}

// Shop configuration bounds: xpPerDollar that would overflow a buyer's XP, URLs that fill the
// body, control characters in what receipts and the shop page show are 400 invalid_input naming
// the field and write nothing; names are counted in characters, not bytes.
func TestCatalogShopConfigBounds(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(false)
	long := "https://cdn.example/" + strings.Repeat("a", 2000)
	for field, body := range map[string]string{
		"xpPerDollar":         `{"xpPerDollar":1e300}`,
		"xpPerDollar 10001":   `{"xpPerDollar":10001}`,
		"links[0]":            `{"links":[{"label":"Site","url":"` + long + `"}]}`,
		"links[0] label":      `{"links":[{"label":"Si\u0007te","url":"https://a.example"}]}`,
		"theme.brandLogoUrl":  `{"theme":{"brandLogoUrl":"` + long + `"}}`,
		"theme.coverPhotoUrl": `{"theme":{"coverPhotoUrl":"` + long + `"}}`,
		"theme.fontFamily":    `{"theme":{"fontFamily":"Inter\u0085"}}`,
		"name":                `{"name":"Blue\u001b[31mBottle"}`,
		"name override":       `{"name":"Blue \u202eelttoB"}`,
		"name newline":        `{"name":"Blue\nBottle"}`,
		"bio":                 `{"bio":"coffee\u0008"}`,
	} {
		rec := e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/shop/config", body)
		env := decode(t, rec)
		msg, _ := env["message"].(string)
		if rec.Code != 400 || env["error"] != "invalid_input" || !strings.HasPrefix(msg, strings.Fields(field)[0]) {
			t.Errorf("%s: %d %v", field, rec.Code, env)
		}
	}
	if n := e.shopRows(); n != 0 {
		t.Fatalf("refused writes stored %d shop configs", n)
	}
	name := strings.Repeat("珈琲", 90) // 180 characters, 540 bytes
	rec := e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/shop/config",
		`{"name":"`+name+`","bio":"Roasted daily.\nOpen 7-19.","xpPerDollar":10000}`)
	if rec.Code != 200 {
		t.Fatalf("a 180-character name, a two-line bio: %d %s", rec.Code, rec.Body)
	}
	if cfg := decode(t, rec)["config"].(map[string]any); cfg["name"] != name || cfg["xpPerDollar"] != 10000.0 {
		t.Fatalf("stored %v", cfg)
	}
}

// A merchant's first two shop writes, sent at once with different fields, both keep their field:
// each found no configuration to lock, started from the defaults, and the second insert
// overwrote the first one's row.
func TestCatalogShopConfigFirstWritesConcurrentKeepBoth(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	for round := range 10 {
		m := e.merchant(false)
		var wg sync.WaitGroup
		for _, body := range []string{`{"name":"Blue Bottle"}`, `{"bio":"coffee"}`} {
			wg.Go(func() {
				if rec := e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/shop/config", body); rec.Code != 200 {
					t.Errorf("%s: %d %s", body, rec.Code, rec.Body)
				}
			})
		}
		wg.Wait()
		key := e.key(m.wallet, "shop:read")
		rec := e.do(req{method: http.MethodGet, path: "/api/shop/config", header: map[string]string{"Ocp-Apim-Subscription-Key": key}})
		cfg := decode(t, rec)["config"].(map[string]any)
		if cfg["name"] != "Blue Bottle" || cfg["bio"] != "coffee" {
			t.Fatalf("round %d: a first write was lost: name %q bio %q", round, cfg["name"], cfg["bio"])
		}
	}
}
