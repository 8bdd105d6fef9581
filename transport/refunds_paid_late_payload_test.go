package transport

import (
	"strings"
	"testing"
)

// TestStatusReadOfAReceiptPaidLateAfterItsFundsWereReturned (stop 69): refundedUsd is the order's
// refunds, never more than its total, and refundedBeforePaymentUsd the funds returned before the
// late payment paid it; together what the customer got back.
func TestStatusReadOfAReceiptPaidLateAfterItsFundsWereReturned(t *testing.T) {
	t.Parallel()
	e, m, id, refund := paidLateAfterFundsReturned(t)
	if st := e.status(m, id); st["refundedUsd"] != 0.0 || st["refundedBeforePaymentUsd"] != 4.0 {
		t.Fatalf("paid late: refundedUsd %v refundedBeforePaymentUsd %v, want 0 and 4", st["refundedUsd"], st["refundedBeforePaymentUsd"])
	}
	if code, out := refund("10", "6"); code != 200 || out["requestedRefundUsd"] != 10.0 {
		t.Fatalf("the order's 10.00: %d %v", code, out)
	}
	e.proveRefundForTest(id, "0x"+strings.Repeat("6", 64), "10000000")
	st := e.status(m, id)
	if st["status"] != "refunded" || st["refundedUsd"] != 10.0 || st["refundedBeforePaymentUsd"] != 4.0 {
		t.Fatalf("refunded: %v refundedUsd %v refundedBeforePaymentUsd %v, want refunded 10 4", st["status"], st["refundedUsd"], st["refundedBeforePaymentUsd"])
	}
}
