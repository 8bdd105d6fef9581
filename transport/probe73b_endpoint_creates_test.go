package transport

import (
	"net/http"
	"testing"
)

// TestEndpointCreationsAreBoundedPerWalletAnHour (stop 73, second probe): MaxEndpoints bounds the
// live endpoints only, and a deleted endpoint's row stays 30 days (its log stays). Any wallet can
// sign in, so a create/delete loop at the per-wallet admin rate (600 a minute) kept up to about
// 13 million rows at once per wallet, each creation also resolving the URL's name. Past
// EndpointCreatesPerHour in an hour a creation is 429 rate_limited, and stores nothing; the next
// hour creates.
func TestEndpointCreationsAreBoundedPerWalletAnHour(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(false)
	checkHourlyCreations(t, e, m, EndpointCreatesPerHour, createLoop{path: "/api/webhooks/endpoints",
		body: `{"url":"https://hooks.example.com/loop","events":["*"]}`, field: "endpoint",
		rowsSQL: `SELECT count(*) FROM webhook_endpoints WHERE merchant_wallet = $1`}, func() {
		// Bad input costs nothing: it is refused before it is counted.
		if r := e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/webhooks/endpoints", `{"url":"","events":["*"]}`); r.Code != http.StatusBadRequest {
			t.Fatalf("bad input past the bound: %d %s, want 400", r.Code, r.Body)
		}
	})
}
