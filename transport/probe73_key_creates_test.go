package transport

import (
	"context"
	"net/http"
	"testing"
	"time"
)

// TestKeyCreationsAreBoundedPerWalletAnHour (stop 73 probe): MaxLiveKeys bounds the live keys
// only, and revoked keys stay (for the audit). Any wallet can sign in, so a create/revoke loop at
// the per-wallet admin rate (600 a minute) added a row each time without end, about 430,000 a day
// per wallet, and each revocation of a live key emptied every instance's key cache and woke every
// open stream and export (as plans were, before PlanCreatesPerHour). Past KeyCreatesPerHour in an
// hour a creation is 429 rate_limited with resetAt, and stores nothing; the next hour creates.
func TestKeyCreationsAreBoundedPerWalletAnHour(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(false)
	rows := func() int {
		var n int
		if err := e.pool.QueryRow(context.Background(), `SELECT count(*) FROM api_keys WHERE wallet = $1`, m.wallet).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	createAndRevoke := func() int {
		rec := e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/admin/keys", `{"name":"loop","scopes":["receipts:read"]}`)
		if rec.Code != http.StatusCreated {
			return rec.Code
		}
		id := decode(t, rec)["apiKey"].(map[string]any)["id"].(string)
		if r := e.adminCall(m.cookies, m.csrf, http.MethodDelete, "/api/admin/keys/"+id, ""); r.Code != http.StatusOK {
			t.Fatalf("revoke: %d %s", r.Code, r.Body)
		}
		return rec.Code
	}
	before := rows()
	for i := range KeyCreatesPerHour {
		if code := createAndRevoke(); code != http.StatusCreated {
			t.Fatalf("creation %d: %d", i+1, code)
		}
	}
	rec := e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/admin/keys", `{"name":"loop","scopes":["receipts:read"]}`)
	if rec.Code != http.StatusTooManyRequests || decode(t, rec)["error"] != "rate_limited" {
		t.Fatalf("creation past the hour's bound: %d %s, want 429 rate_limited", rec.Code, rec.Body)
	}
	if n := rows(); n != before+KeyCreatesPerHour {
		t.Fatalf("%d key rows, want %d: the refused creation stored one", n, before+KeyCreatesPerHour)
	}
	e.clk.Advance(time.Hour)
	if code := createAndRevoke(); code != http.StatusCreated {
		t.Fatalf("the next hour: %d", code)
	}
}
