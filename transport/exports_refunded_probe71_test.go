package transport

import (
	"net/http"
	"strings"
	"testing"
)

// TestExportRefundedIsTheOrdersAsRefundedUsdSays: the receipts export's refunded column says what
// the status read's refundedUsd says: the order's refunds. A customer sent 20 for a 10.00
// receipt and the merchant returned the 10 of excess apart (stop 70): the receipt stays paid,
// refundedUsd 0, refundedExcessUsd 10; the export summed every refund and wrote refunded 10.00
// beside total 10.00, a row that reads as a fully refunded order (and what billing no longer
// counts as refunded since stop 70).
func TestExportRefundedIsTheOrdersAsRefundedUsdSays(t *testing.T) {
	t.Parallel()
	e := portalEnv(t)
	m := e.merchant(true)
	id := e.receiptFor(m, "10")
	e.depositCredit(id, "0x"+strings.Repeat("3", 64), "USDC", "20000000", true)
	if st := e.status(m, id); st["status"] != "paid" {
		t.Fatalf("overpaid: %v", st)
	}
	if err := e.excessRefund(m, id, "", "4"); err != nil {
		t.Fatalf("the excess: %v", err)
	}
	e.proveRefundForTest(id, "0x"+strings.Repeat("4", 64), "10000000")
	if st := e.status(m, id); st["status"] != "paid" || st["refundedUsd"] != 0.0 || st["refundedExcessUsd"] != 10.0 {
		t.Fatalf("excess refunded: %v", st)
	}
	refunded := func() string {
		t.Helper()
		out := e.dev(m, http.MethodGet, "/api/exports/receipts.csv", "")
		if out.Code != 200 {
			t.Fatalf("export: %d %s", out.Code, out.Body)
		}
		for _, r := range readCSV(t, out.Body.String())[1:] {
			if r[0] == id {
				return r[14]
			}
		}
		t.Fatalf("no row for %s", id)
		return ""
	}
	if got := refunded(); got != "0.00" {
		t.Fatalf("refunded of a paid receipt whose excess alone was returned: %q, want 0.00 (refundedUsd)", got)
	}
	if code := e.refundOf(m, id, "4", "6"); code != 200 {
		t.Fatalf("4.00 of the order: %d", code)
	}
	e.proveRefundForTest(id, "0x"+strings.Repeat("6", 64), "4000000")
	if got := refunded(); got != "4.00" {
		t.Fatalf("refunded after 4.00 of the order: %q, want 4.00", got)
	}
}
