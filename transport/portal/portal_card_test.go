package portal_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/payledger/payledger/transport/transporttest"
)

// TestPortalOffersTheCardOnlyWhenAProcessorIsConfigured: without PROCESSOR_API_URL the page had a
// card button anyway, and a customer who clicked it read the operator's message naming the
// setting; the button is there only when the onramp can start.
func TestPortalOffersTheCardOnlyWhenAProcessorIsConfigured(t *testing.T) {
	for _, c := range []struct {
		name      string
		processor bool
	}{{"no processor", false}, {"a processor", true}} {
		t.Run(c.name, func(t *testing.T) {
			opts := transporttest.Portal()
			if c.processor {
				opts = transporttest.PortalWithCard()
			}
			e := transporttest.New(t, opts)
			id := e.ReceiptFor(e.Merchant(true), "12.34")
			rec := e.Do(transporttest.Req{Method: http.MethodGet, Path: "/pay/" + id})
			if rec.Code != 200 {
				t.Fatalf("page: %d", rec.Code)
			}
			html := rec.Body.String()
			if got := strings.Contains(html, `id="pay-card"`); got != c.processor {
				t.Fatalf("card button %v, want %v", got, c.processor)
			}
			if !strings.Contains(html, `id="pay-wallet"`) {
				t.Fatal("the wallet button is gone")
			}
		})
	}
}
