package transport

import (
	"net/http"
	"strings"
	"testing"
)

// The payment page's 404 shows the id only when it has a receipt id's shape: any text put in a
// link's path (/pay/Your-card-was-charged-twice.Call-...) was shown on the service's own page as its
// words, escaped but readable, an invitation to phishing.
func TestPaymentPageNotFoundShowsNoInjectedText(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	injected := "Your-card-was-charged-twice.Call-+1-555-0100-for-a-refund"
	for _, prefix := range []string{"/pay/", "/portal/"} {
		rec := e.do(req{method: http.MethodGet, path: prefix + injected})
		if rec.Code != http.StatusNotFound || strings.Contains(rec.Body.String(), "charged twice") || !strings.Contains(rec.Body.String(), "Receipt not found") {
			t.Fatalf("%s<text>: %d %s", prefix, rec.Code, rec.Body)
		}
		for _, text := range []string{"Call-5550100-now", "rcpt_" + strings.Repeat("a", 41)} {
			if rec := e.do(req{method: http.MethodGet, path: prefix + text}); rec.Code != http.StatusNotFound || strings.Contains(rec.Body.String(), text) {
				t.Fatalf("%s%s: %d %s", prefix, text, rec.Code, rec.Body)
			}
		}
		// A mistyped receipt id is still shown, so that the customer can compare it.
		if rec := e.do(req{method: http.MethodGet, path: prefix + "rcpt_0123456789abcdef"}); rec.Code != http.StatusNotFound || !strings.Contains(rec.Body.String(), "<code>rcpt_0123456789abcdef</code>") {
			t.Fatalf("%s<id>: %d %s", prefix, rec.Code, rec.Body)
		}
	}
}
