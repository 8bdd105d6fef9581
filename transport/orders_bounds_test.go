package transport

import (
	"net/http"
	"strings"
	"testing"
)

// TestOrderAmountsPastTheBoundAreInvalidInput: an order whose line, subtotal or total would pass
// 10^13 USD (10^15 cents, the bound ParseCents puts on a price) is 400 invalid_input naming the
// bound, and stores nothing; an item at 10^13 USD times 10,000 wrapped int64 to a receipt with a
// negative total and a negative processing fee.
func TestOrderAmountsPastTheBoundAreInvalidInput(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(true)
	e.item(m, `{"sku":"gold","name":"Gold","priceUsd":10000000000000}`)
	e.item(m, `{"sku":"half","name":"Half","priceUsd":5000000000000,"taxable":true}`)
	for name, body := range map[string]string{
		"line wraps int64":         `{"items":[{"sku":"gold","qty":10000}]}`,
		"line past the bound":      `{"items":[{"sku":"half","qty":3}]}`,
		"subtotal past the bound":  `{"items":[{"sku":"half","qty":2},{"sku":"half","qty":1}]}`,
		"fee takes it past":        `{"items":[{"sku":"gold","qty":1}]}`,
		"tax takes it past":        `{"items":[{"sku":"half","qty":1}],"taxRate":1}`,
		"million of the most dear": `{"items":[{"sku":"gold","qty":1000000}]}`,
	} {
		rec := e.dev(m, http.MethodPost, "/api/orders", body)
		env := decode(t, rec)
		if rec.Code != 400 || env["error"] != "invalid_input" || !strings.Contains(env["message"].(string), "10000000000000.00") {
			t.Errorf("%s: %d %v (want 400 invalid_input naming the bound)", name, rec.Code, env)
		}
	}
	if n := e.count("receipts"); n != 0 {
		t.Fatalf("refused orders stored %d receipts", n)
	}
	rec := e.dev(m, http.MethodPost, "/api/orders", `{"items":[{"sku":"half","qty":1}]}`)
	if r := decode(t, rec)["receipt"]; rec.Code != 200 || r.(map[string]any)["totalUsd"].(float64) != 5025000000000 {
		t.Fatalf("an order under the bound: %d %s", rec.Code, rec.Body)
	}
}
