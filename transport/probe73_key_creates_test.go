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
	checkHourlyCreations(t, e, e.merchant(false), KeyCreatesPerHour, createLoop{path: "/api/admin/keys",
		body: `{"name":"loop","scopes":["receipts:read"]}`, field: "apiKey",
		rowsSQL: `SELECT count(*) FROM api_keys WHERE wallet = $1`}, nil)
}

// createLoop is a create-then-remove loop on one of a merchant's collections (its API keys, its
// webhook endpoints), as a wallet could run it at the admin rate: each removal leaves a kept row.
type createLoop struct {
	path, body string // the creation's route and body; the removal is DELETE path/<id>
	field      string // the answer's object that holds the id
	rowsSQL    string // counts the merchant's rows, kept and live ($1: its wallet)
}

// checkHourlyCreations runs l bound times (each creation removed at once), then checks that the
// next creation is 429 rate_limited and stores nothing, runs past (nil: nothing) while the
// bound holds, and checks that the next hour creates again.
func checkHourlyCreations(t *testing.T, e *env, m merchant, bound int, l createLoop, past func()) {
	t.Helper()
	rows := func() int {
		var n int
		if err := e.pool.QueryRow(context.Background(), l.rowsSQL, m.wallet).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	createAndRemove := func() int {
		rec := e.adminCall(m.cookies, m.csrf, http.MethodPost, l.path, l.body)
		if rec.Code != http.StatusCreated {
			return rec.Code
		}
		id := decode(t, rec)[l.field].(map[string]any)["id"].(string)
		if r := e.adminCall(m.cookies, m.csrf, http.MethodDelete, l.path+"/"+id, ""); r.Code != http.StatusOK {
			t.Fatalf("remove: %d %s", r.Code, r.Body)
		}
		return rec.Code
	}
	before := rows()
	for i := range bound {
		if code := createAndRemove(); code != http.StatusCreated {
			t.Fatalf("creation %d: %d", i+1, code)
		}
	}
	rec := e.adminCall(m.cookies, m.csrf, http.MethodPost, l.path, l.body)
	if rec.Code != http.StatusTooManyRequests || decode(t, rec)["error"] != "rate_limited" {
		t.Fatalf("creation past the hour's bound: %d %s, want 429 rate_limited", rec.Code, rec.Body)
	}
	if n := rows(); n != before+bound {
		t.Fatalf("%d rows, want %d: the refused creation stored one", n, before+bound)
	}
	if past != nil {
		past()
	}
	e.clk.Advance(time.Hour)
	if code := createAndRemove(); code != http.StatusCreated {
		t.Fatalf("the next hour: %d", code)
	}
}
