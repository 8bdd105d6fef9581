package transport

import (
	"net/http"
	"testing"
)

// TestQuoteOfAnUnknownReceiptIsNotFound (stop 62): quoting a receipt that does not exist is 404
// not_found, as the portal's other routes answer for it, whatever prices are set. With no price
// for the token it was 503 price_unavailable: the price was checked before the receipt.
func TestQuoteOfAnUnknownReceiptIsNotFound(t *testing.T) {
	t.Parallel()
	e := quoteEnv(t)
	other := e.do(req{method: http.MethodGet, path: "/api/portal/rcpt_nobody/request?token=USDC"})
	if other.Code != http.StatusNotFound {
		t.Fatalf("the payment request of an unknown receipt: %d %s", other.Code, other.Body)
	}
	for _, token := range []string{"ETH", "cbBTC", "USDC"} { // no USD price is set for ETH and cbBTC
		rec := e.do(req{method: http.MethodPost, path: "/api/portal/rcpt_nobody/quote", body: `{"token":"` + token + `"}`})
		if body := decode(t, rec); rec.Code != http.StatusNotFound || body["error"] != "not_found" || body["message"] == nil {
			t.Fatalf("quote of an unknown receipt in %s: %d %s", token, rec.Code, rec.Body)
		}
	}
}
