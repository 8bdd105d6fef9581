package transport

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// reserveRatios are looked up by a receipt's currency: any other key ("USDC", "usd") was stored
// and never used (the recommendation kept the default 10% with no word), and any number of keys
// was taken. Only USD and EUR are keys now.
func TestSiteReserveRatiosOnlyForReceiptCurrencies(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	ac, acsrf := e.login(e.admin)
	var many strings.Builder // a thousand keys, each stored and served before
	many.WriteString(`{"reserveRatios":{"USD":0.1`)
	for i := range 1000 {
		many.WriteString(`,"K` + strconv.Itoa(i) + `":0.1`)
	}
	many.WriteString(`}}`)
	for _, body := range []string{`{"reserveRatios":{"usd":0.2}}`, `{"reserveRatios":{"USDC":0.2}}`, many.String()} {
		rec := e.adminCall(ac, acsrf, http.MethodPost, "/api/site/config", body)
		if rec.Code != 400 || decode(t, rec)["error"] != "invalid_input" {
			t.Errorf("%.60s: %d %s", body, rec.Code, rec.Body)
		}
	}
	if rec := e.adminCall(ac, acsrf, http.MethodPost, "/api/site/config", `{"reserveRatios":{"USD":0.2,"EUR":0.3}}`); rec.Code != 200 {
		t.Fatalf("USD and EUR: %d %s", rec.Code, rec.Body)
	}
	got := decode(t, e.do(req{method: http.MethodGet, path: "/api/site/config"}))["reserveRatios"].(map[string]any)
	if len(got) != 2 || got["USD"] != 0.2 || got["EUR"] != 0.3 {
		t.Fatalf("stored %v", got)
	}
}
