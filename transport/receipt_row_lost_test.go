package transport

import (
	"context"
	"net/http"
	"strings"
	"testing"
)

// A receipt whose read-model row is missing while its event is stored (the projector has not
// applied it yet, or a crash of PostgreSQL took the asynchronously committed row back) is not
// "not found" on the reads that name it: GET /api/receipts/{id}, the payment page, its JSON and
// the page's polling fold it from the event log, as the status read already did. Before, the
// merchant read 404 for a receipt it had just been answered, and the customer sent to its page
// read "There is no receipt".
func TestReceiptReadsOfAReceiptWhoseRowWasLost(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(true)
	id := e.receiptFor(m, "12.50")
	if _, err := e.pool.Exec(context.Background(), `DELETE FROM receipts WHERE receipt_id = $1`, id); err != nil {
		t.Fatal(err)
	}
	if rec := e.dev(m, http.MethodGet, "/api/receipts/"+id, ""); rec.Code != http.StatusOK {
		t.Errorf("GET /api/receipts/{id}: %d %s", rec.Code, rec.Body)
	} else if r := decode(t, rec)["receipt"].(map[string]any); r["receiptId"] != id || r["totalUsd"] != 12.5 || r["status"] != "generated" {
		t.Errorf("GET /api/receipts/{id}: %v", r)
	}
	public := map[string]string{
		"/portal/" + id:     id,
		"/pay/" + id:        id,
		"/api/portal/" + id: `"totalUsd":12.5`,
		"/api/terminal/check-payment?receiptId=" + id: `"status":"generated"`,
	}
	for path, want := range public {
		if rec := e.do(req{method: http.MethodGet, path: path}); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), want) {
			t.Errorf("%s: %d %.300s", path, rec.Code, rec.Body)
		}
	}
	// Another merchant's receipt is still not found, nor an unknown one.
	other := e.merchant(true)
	if rec := e.dev(other, http.MethodGet, "/api/receipts/"+id, ""); rec.Code != http.StatusNotFound {
		t.Fatalf("another merchant's receipt: %d %s", rec.Code, rec.Body)
	}
	for _, path := range []string{"/api/receipts/rcpt_unknown", "/portal/rcpt_unknown", "/api/portal/rcpt_unknown", "/api/terminal/check-payment?receiptId=rcpt_unknown"} {
		call := e.do(req{method: http.MethodGet, path: path})
		if strings.HasPrefix(path, "/api/receipts/") {
			call = e.dev(m, http.MethodGet, path, "")
		}
		if call.Code != http.StatusNotFound {
			t.Errorf("%s: %d %.200s", path, call.Code, call.Body)
		}
	}
}
