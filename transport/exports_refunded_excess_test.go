package transport

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/payledger/payledger/domain/receipt"
)

// TestExportRefundedExcessIsRefundedExcessUsd (stop 72): the receipts export's last column,
// refundedExcess, says what the status read's refundedExcessUsd says, and refunded what
// refundedUsd says, so a merchant's books from the export see what left its wallet: a paid
// receipt's excess refunded apart (20 sent for 10.00, 10 of excess back), a failed receipt paid
// twice after its watch whose 20 came back (10 shown as the order's, 10 as the excess), and a
// receipt paid late after its 4 of early funds were returned (neither column: those are
// refundedBeforePaymentUsd). Before, the export had no such column.
func TestExportRefundedExcessIsRefundedExcessUsd(t *testing.T) {
	t.Parallel()
	e, m, late, _ := paidLateAfterFundsReturned(t)
	overpaid := e.receiptFor(m, "10")
	e.depositCredit(overpaid, "0x"+strings.Repeat("7", 64), "USDC", "20000000", true)
	if err := e.excessRefund(m, overpaid, "", "8"); err != nil {
		t.Fatalf("the excess: %v", err)
	}
	e.proveRefundForTest(overpaid, "0x"+strings.Repeat("8", 64), "10000000")
	twice := e.receiptFor(m, "10")
	e.changeForRefundTest(twice, func(st receipt.State) ([]receipt.Event, error) {
		return receipt.Expire(st, st.Receipt.ExpiresAt+1, 0) // no late watch
	})
	e.clk.Advance(2 * time.Hour)
	e.depositCredit(twice, "0x"+strings.Repeat("9", 64), "USDC", "10000000", true)
	e.depositCredit(twice, "0x"+strings.Repeat("a", 64), "USDC", "10000000", true)
	if code := e.refundOf(m, twice, "20", "b"); code != 200 {
		t.Fatalf("both payments back: %d", code)
	}
	e.proveRefundForTest(twice, "0x"+strings.Repeat("b", 64), "20000000")

	out := e.dev(m, http.MethodGet, "/api/exports/receipts.csv?from=0", "")
	if out.Code != 200 {
		t.Fatalf("export: %d %s", out.Code, out.Body)
	}
	recs := readCSV(t, out.Body.String())
	last := len(recs[0]) - 1
	if recs[0][last] != "refundedExcess" || recs[0][14] != "refunded" {
		t.Fatalf("header %v: refundedExcess must be last, after refunded", recs[0])
	}
	rows := map[string][]string{}
	for _, r := range recs[1:] {
		rows[r[0]] = r
	}
	usd := func(v any) string {
		f, _ := v.(float64) // absent (omitted when 0): 0
		return strconv.FormatFloat(f, 'f', 2, 64)
	}
	for name, c := range map[string]struct{ id, refunded, excess string }{
		"overpaid, its excess refunded": {overpaid, "0.00", "10.00"},
		"failed, paid twice, both back": {twice, "10.00", "10.00"},
		"paid late after funds back":    {late, "0.00", "0.00"},
	} {
		r, st := rows[c.id], e.status(m, c.id)
		if r == nil {
			t.Fatalf("%s: no row", name)
		}
		if r[14] != c.refunded || r[last] != c.excess {
			t.Errorf("%s: refunded %q refundedExcess %q, want %q %q", name, r[14], r[last], c.refunded, c.excess)
		}
		if r[14] != usd(st["refundedUsd"]) || r[last] != usd(st["refundedExcessUsd"]) {
			t.Errorf("%s: export %q %q, status read refundedUsd %v refundedExcessUsd %v", name, r[14], r[last], st["refundedUsd"], st["refundedExcessUsd"])
		}
	}
}
