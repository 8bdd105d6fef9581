package transport

import (
	"net/http"
	"strings"
	"testing"
)

// An order's or direct receipt's links are bounded: a redirect_url, successUrl or webhook_url of
// 900 KB was stored in the receipt's event (and the webhook worker would post to it) because only
// their shape was checked.
func TestOrderAndReceiptLinksAreBounded(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(true)
	e.item(m, `{"sku":"tea","name":"Tea","priceUsd":4}`)
	long := `"https://shop.example/` + strings.Repeat("a", 900_000) + `"`
	order, direct := `{"items":[{"sku":"tea","qty":1}],`, `{"lineItems":[{"label":"x","priceUsd":1}],"totalUsd":1,`
	before := e.count("receipts")
	for _, field := range []string{"redirect_url", "redirectUrl", "successUrl", "success_url", "webhook_url", "webhookUrl"} {
		for path, body := range map[string]string{"/api/orders": order, "/api/receipts": direct} {
			rec := e.dev(m, http.MethodPost, path, body+`"`+field+`":`+long+`}`)
			if env := decode(t, rec); rec.Code != http.StatusBadRequest || env["error"] != "invalid_input" {
				t.Errorf("%s with a 900 KB %s: %d %.200s", path, field, rec.Code, rec.Body)
			}
		}
	}
	if n := e.count("receipts"); n != before {
		t.Fatalf("refused requests stored %d receipts", n-before)
	}
	// A link of 2048 characters is a link.
	link := `"https://shop.example/` + strings.Repeat("a", maxURLLength-len("https://shop.example/")) + `"`
	for _, field := range []string{"redirect_url", "successUrl", "webhook_url"} {
		if rec := e.dev(m, http.MethodPost, "/api/orders", order+`"`+field+`":`+link+`}`); rec.Code != http.StatusOK {
			t.Errorf("a %d-character %s: %d %.200s", maxURLLength, field, rec.Code, rec.Body)
		}
	}
}
