package transport

import (
	"net/http"
	"testing"
)

// The shop's webhookUrl (subscription webhooks) follows a receipt's webhook_url rules: in
// production https only, and no localhost or private address, refused when it is configured
// rather than found out at each delivery; development takes http and localhost.
func TestShopWebhookURLFollowsTheReceiptRules(t *testing.T) {
	t.Parallel()
	prod := newEnv(t, func(d *testDeps) { d.Config.Production = true })
	m := prod.merchant(false)
	for _, u := range []string{"http://hooks.example/x", "https://localhost/x", "https://127.0.0.1/x", "https://10.0.0.1/x", "https://[::1]/x"} {
		rec := prod.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/shop/config", `{"webhookUrl":"`+u+`"}`)
		if body := decode(t, rec); rec.Code != 400 || body["error"] != "invalid_input" {
			t.Errorf("production webhookUrl %s: %d %v", u, rec.Code, body)
		}
	}
	for _, body := range []string{`{"webhookUrl":"https://hooks.example/x"}`, `{"webhookUrl":""}`} {
		if rec := prod.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/shop/config", body); rec.Code != 200 {
			t.Errorf("production %s: %d %s", body, rec.Code, rec.Body)
		}
	}
	dev := newEnv(t, func(d *testDeps) { d.Config.Production = false })
	dm := dev.merchant(false)
	if rec := dev.adminCall(dm.cookies, dm.csrf, http.MethodPost, "/api/shop/config", `{"webhookUrl":"http://localhost:9000/x"}`); rec.Code != 200 {
		t.Fatalf("development http://localhost webhookUrl: %d %s", rec.Code, rec.Body)
	}
}
