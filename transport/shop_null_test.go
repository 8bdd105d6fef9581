package transport

import (
	"net/http"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"
)

// TestShopConfigNullIsRefused: null for a field that is not nullable is 400 invalid_input naming
// the field, and nothing changes (it used to become 0, false or "" silently); omitting a field
// leaves it unchanged, and slug and industryPack still take null to clear (docs/decisions.md).
func TestShopConfigNullIsRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	merchant, _ := crypto.GenerateKey()
	wallet := walletOf(merchant)
	cookies, csrf := e.login(merchant)
	key := e.key(wallet, "shop:read")
	initial := `{"name":"Null Test","xpPerDollar":3,"setupComplete":true,"brandKey":"Acme","slug":"null-test",
		"industryPack":"retail","webhookUrl":"https://hooks.example/sub",
		"theme":{"primaryColor":"#0af","brandLogoUrl":"https://cdn.example/logo.png"}}`
	if rec := e.adminCall(cookies, csrf, http.MethodPost, "/api/shop/config", initial); rec.Code != 200 {
		t.Fatalf("initial write: %d %s", rec.Code, rec.Body)
	}
	read := func() map[string]any {
		rec := e.do(req{method: http.MethodGet, path: "/api/shop/config", header: map[string]string{"Ocp-Apim-Subscription-Key": key}})
		if rec.Code != 200 {
			t.Fatalf("read: %d %s", rec.Code, rec.Body)
		}
		return decode(t, rec)["config"].(map[string]any)
	}
	before := read()
	for field, body := range map[string]string{
		"xpPerDollar":        `{"xpPerDollar":null}`,
		"setupComplete":      `{"setupComplete":null}`,
		"brandKey":           `{"brandKey":null}`,
		"webhookUrl":         `{"webhookUrl":null}`,
		"name":               `{"name":null}`,
		"processingFeePct":   `{"processingFeePct":null}`,
		"links":              `{"links":null}`,
		"theme":              `{"theme":null}`,
		"theme.primaryColor": `{"theme":{"primaryColor":null}}`,
		"theme.brandLogoUrl": `{"theme":{"brandLogoUrl":null}}`,
	} {
		rec := e.adminCall(cookies, csrf, http.MethodPost, "/api/shop/config", `{"description":"Changed",`+body[1:])
		env := decode(t, rec)
		msg, _ := env["message"].(string)
		if rec.Code != 400 || env["error"] != "invalid_input" || !strings.HasPrefix(msg, field+" ") {
			t.Errorf("%s: %d %v, want 400 invalid_input naming %s", body, rec.Code, env, field)
		}
	}
	after := read()
	for _, f := range []string{"name", "description", "xpPerDollar", "setupComplete", "brandKey", "webhookUrl"} {
		if before[f] != after[f] {
			t.Errorf("%s changed by a refused request: %v -> %v", f, before[f], after[f])
		}
	}
	if before["xpPerDollar"] != float64(3) || before["setupComplete"] != true {
		t.Fatalf("initial values not stored: %v", before)
	}
	// Omitted: unchanged. null on the nullable fields: cleared.
	if rec := e.adminCall(cookies, csrf, http.MethodPost, "/api/shop/config", `{"slug":null,"industryPack":null}`); rec.Code != 200 {
		t.Fatalf("clearing slug and industryPack: %d %s", rec.Code, rec.Body)
	}
	cleared := read()
	if cleared["slug"] != nil || cleared["industryPack"] != nil || cleared["xpPerDollar"] != float64(3) || cleared["setupComplete"] != true {
		t.Fatalf("after clearing: %v", cleared)
	}
}
