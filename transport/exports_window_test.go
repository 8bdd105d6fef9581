package transport

import (
	"context"
	"net/http"
	"strconv"
	"testing"
	"time"
)

// TestExportWindowWithOnlyTo: the window defaults to 30 days, and given only its end (to) it is
// the 30 days before it. It was the 30 days before now whatever to said, so a merchant asking
// for the month up to a date two months ago was told "from must be before to", of a from it
// never sent, and one up to last week got the days since a month ago only.
func TestExportWindowWithOnlyTo(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(false)
	insertReceipts(t, e, m.wallet, 3)
	now := e.clk.Now()
	created := now.Add(-60 * 24 * time.Hour) // two months ago
	if _, err := e.pool.Exec(context.Background(), `UPDATE receipts SET created_at = $2 WHERE merchant_wallet = $1`, m.wallet, created); err != nil {
		t.Fatal(err)
	}
	to := strconv.FormatInt(created.Add(time.Hour).UnixMilli(), 10)
	rec := e.dev(m, http.MethodGet, "/api/exports/receipts.csv?to="+to, "")
	if rec.Code != 200 {
		t.Fatalf("to only, two months ago: %d %s", rec.Code, rec.Body)
	}
	if rows := readCSV(t, rec.Body.String()); len(rows) != 4 {
		t.Fatalf("to only, two months ago: %d rows, want the 3 receipts of the 30 days before it", len(rows)-1)
	}
	// Both bounds given: as asked, and a from past to is still refused.
	from := strconv.FormatInt(created.Add(-time.Hour).UnixMilli(), 10)
	if rows := readCSV(t, e.dev(m, http.MethodGet, "/api/exports/receipts.csv?from="+from+"&to="+to, "").Body.String()); len(rows) != 4 {
		t.Fatalf("from and to: %d rows", len(rows)-1)
	}
	if bad := e.dev(m, http.MethodGet, "/api/exports/receipts.csv?from="+to+"&to="+from, ""); bad.Code != 400 || decode(t, bad)["error"] != "invalid_input" {
		t.Fatalf("from after to: %d %s", bad.Code, bad.Body)
	}
	// Without either: the last 30 days (none of these).
	if rows := readCSV(t, e.dev(m, http.MethodGet, "/api/exports/receipts.csv", "").Body.String()); len(rows) != 1 {
		t.Fatalf("the last 30 days: %d rows", len(rows)-1)
	}
}
