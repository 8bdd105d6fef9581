package dashboard_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestReceiptNotFoundShowsNoInjectedText: the dashboard's 404 shows the path's id only when it
// has a receipt id's shape. It echoed any text of a link's path as the dashboard's own words
// ("There is no receipt Your-payouts-are-frozen... of this merchant"), escaped but readable, to a
// signed-in merchant who followed a link: the finding stop 62 closed on the payment page.
func TestReceiptNotFoundShowsNoInjectedText(t *testing.T) {
	e := dashEnv(t, nil)
	m, other := e.Merchant(false), e.Merchant(false)
	for _, text := range []string{"Your-payouts-are-frozen.Call-+1-555-0100-to-unlock", "Payouts_frozen:call_+1.555.0100!",
		"rcpt_" + strings.Repeat("a", 41), "m0123456789ab_" + strings.Repeat("a", 65)} {
		code, page, h := e.Get("/dashboard/receipts/"+url.PathEscape(text), m.Cookies)
		if code != http.StatusNotFound || !strings.Contains(page, "Receipt not found") || h.Get("Cache-Control") != "no-store" {
			t.Fatalf("%q: %d %s", text, code, page)
		}
		// "555-0100" and "555.0100", not "555": the page's random CSRF token may hold three 5s.
		for _, words := range []string{text, "frozen", "555-0100", "555.0100", "Call", "call_"} {
			if strings.Contains(page, words) {
				t.Errorf("%q: the 404 page shows %q:\n%s", text, words, page)
			}
		}
	}
	// A receipt id is still shown, so that the merchant can compare it: a mistyped one, another
	// merchant's (which is not found here either) and a merchant's own namespaced one.
	foreign := e.ReceiptFor(other, "3")
	for _, id := range []string{"rcpt_0123456789abcdef", foreign, "m0123456789ab_inv-1001"} {
		if code, page, _ := e.Get("/dashboard/receipts/"+id, m.Cookies); code != http.StatusNotFound || !strings.Contains(page, "<code>"+id+"</code>") {
			t.Errorf("%s: %d, want 404 naming it\n%s", id, code, page)
		}
	}
}
