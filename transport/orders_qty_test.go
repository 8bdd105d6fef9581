package transport

import (
	"net/http"
	"testing"
)

// A whole quantity written with a fraction or an exponent (1.0, what Python's json.dumps writes
// for a float, or 2e0) is that quantity: the spec's qty is a number >= 1, and the refusal said
// "must be a whole number >= 1" to a request that sent one. Fractions and out-of-range
// quantities are still refused.
func TestOrderQuantityWrittenAsADecimal(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(true)
	e.item(m, `{"sku":"tea","name":"Tea","priceUsd":4}`)
	for lit, want := range map[string]float64{"1.0": 1, "2.00": 2, "3e0": 3, "1E1": 10, "250.0e-1": 25} {
		rec := e.dev(m, http.MethodPost, "/api/orders", `{"items":[{"sku":"tea","qty":`+lit+`}]}`)
		if rec.Code != http.StatusOK {
			t.Errorf("qty %s: %d %s", lit, rec.Code, rec.Body)
			continue
		}
		line := decode(t, rec)["receipt"].(map[string]any)["lineItems"].([]any)[0].(map[string]any)
		if line["qty"] != want || line["priceUsd"] != 4*want {
			t.Errorf("qty %s: line %v", lit, line)
		}
	}
	for _, lit := range []string{"1.5", "0.0", "-1.0", "1e7", "1e-1", "1.000000000000000000001", "9223372036854775808.0"} {
		rec := e.dev(m, http.MethodPost, "/api/orders", `{"items":[{"sku":"tea","qty":`+lit+`}]}`)
		if env := decode(t, rec); rec.Code != http.StatusBadRequest || env["error"] != "invalid_input" {
			t.Errorf("qty %s: %d %s", lit, rec.Code, rec.Body)
		}
	}
}
