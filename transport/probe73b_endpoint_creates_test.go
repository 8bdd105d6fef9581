package transport

import (
	"context"
	"net/http"
	"testing"
	"time"
)

// TestEndpointCreationsAreBoundedPerWalletAnHour (stop 73, second probe): MaxEndpoints bounds the
// live endpoints only, and a deleted endpoint's row stays 30 days (its log stays). Any wallet can
// sign in, so a create/delete loop at the per-wallet admin rate (600 a minute) kept up to about
// 26 million rows at once per wallet, each creation also resolving the URL's name. Past
// EndpointCreatesPerHour in an hour a creation is 429 rate_limited, and stores nothing; the next
// hour creates.
func TestEndpointCreationsAreBoundedPerWalletAnHour(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(false)
	rows := func() int {
		var n int
		if err := e.pool.QueryRow(context.Background(), `SELECT count(*) FROM webhook_endpoints WHERE merchant_wallet = $1`, m.wallet).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	const body = `{"url":"https://hooks.example.com/loop","events":["*"]}`
	createAndDelete := func() int {
		rec := e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/webhooks/endpoints", body)
		if rec.Code != http.StatusCreated {
			return rec.Code
		}
		id := decode(t, rec)["endpoint"].(map[string]any)["id"].(string)
		if r := e.adminCall(m.cookies, m.csrf, http.MethodDelete, "/api/webhooks/endpoints/"+id, ""); r.Code != http.StatusOK {
			t.Fatalf("delete: %d %s", r.Code, r.Body)
		}
		return rec.Code
	}
	before := rows()
	for i := range EndpointCreatesPerHour {
		if code := createAndDelete(); code != http.StatusCreated {
			t.Fatalf("creation %d: %d", i+1, code)
		}
	}
	rec := e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/webhooks/endpoints", body)
	if rec.Code != http.StatusTooManyRequests || decode(t, rec)["error"] != "rate_limited" {
		t.Fatalf("creation past the hour's bound: %d %s, want 429 rate_limited", rec.Code, rec.Body)
	}
	if n := rows(); n != before+EndpointCreatesPerHour {
		t.Fatalf("%d endpoint rows, want %d: the refused creation stored one", n, before+EndpointCreatesPerHour)
	}
	// Bad input costs nothing: it is refused before it is counted.
	if r := e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/webhooks/endpoints", `{"url":"","events":["*"]}`); r.Code != http.StatusBadRequest {
		t.Fatalf("bad input past the bound: %d %s, want 400", r.Code, r.Body)
	}
	e.clk.Advance(time.Hour)
	if code := createAndDelete(); code != http.StatusCreated {
		t.Fatalf("the next hour: %d", code)
	}
}
