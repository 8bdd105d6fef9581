package transport

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/payledger/payledger/commands"
)

// TestTelemetryIsKeptOnlyForTheHoursAHistoryShows (stop 73 probe): the public telemetry route
// took 20 reports per receipt per clock hour for as long as the receipt existed, each an event
// kept for ever in the event store, though a history shows only the first 48 hours' reports.
// Anyone who knows a receipt id (a payment link) grew the store by 175,000 unread events a year
// per receipt. A report past those hours is refused (403, nothing stored); one within them is
// still recorded.
func TestTelemetryIsKeptOnlyForTheHoursAHistoryShows(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(false)
	rec := e.dev(m, http.MethodPost, "/api/receipts", `{"lineItems":[{"label":"a","priceUsd":1}],"totalUsd":1}`)
	r0 := decode(t, rec)["receipt"].(map[string]any)
	id, created := r0["receiptId"].(string), time.UnixMilli(int64(r0["createdAt"].(float64)))
	report := func() *httptest.ResponseRecorder {
		return e.do(req{method: http.MethodPost, path: "/api/portal/" + id + "/telemetry", body: `{"event":"link_opened"}`})
	}
	stored := func() int {
		var n int
		if err := e.pool.QueryRow(context.Background(), `SELECT count(*) FROM events WHERE stream_id LIKE 'telemetry-' || $1 || '-%'`, id).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	// The hours are clock hours, the creation's the first: the last one a history shows.
	e.clk.Advance(created.Truncate(time.Hour).Add((commands.TelemetryHours - 1) * time.Hour).Sub(e.clk.Now()))
	if r := report(); r.Code != http.StatusOK {
		t.Fatalf("a report within the shown hours: %d %s", r.Code, r.Body)
	}
	if n := stored(); n != 1 {
		t.Fatalf("%d reports stored, want 1", n)
	}
	e.clk.Advance(time.Hour)
	r := report()
	if r.Code != http.StatusForbidden || decode(t, r)["error"] != "forbidden" {
		t.Fatalf("a report after the shown hours: %d %s, want 403 forbidden", r.Code, r.Body)
	}
	if n := stored(); n != 1 {
		t.Fatalf("the refused report was stored: %d reports", n)
	}
	h := decode(t, e.dev(m, http.MethodGet, "/api/receipts/"+id+"/events", ""))
	if tel, _ := h["telemetry"].([]any); len(tel) != 1 {
		t.Fatalf("history lists %d telemetry reports, want 1", len(tel))
	}
}
