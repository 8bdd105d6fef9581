package transport

import (
	"net/http"
	"strings"
	"testing"
)

// TestASecondCardPaymentShowsItsAmount (stop 70): beside processorPaymentsToRefund, the status
// read and the receipt read name what those payments amount to (processorToRefundUsd): a customer
// charged twice, 30.00 then 25.00 by a second card session, is owed 25.00, and the merchant sees
// it without reading the event history. A receipt paid once shows no amount (omitted).
func TestASecondCardPaymentShowsItsAmount(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(true)
	id := e.receiptFor(m, "30")
	for _, s := range []struct{ evt, att, cos string }{{"evt_p1", "att_1", "cos_1"}, {"evt_p2", "att_2", "cos_2"}} {
		if rec := e.processorEvent(s.evt, id, s.att, s.cos, "fulfillment_processing", ""); rec.Code != http.StatusOK {
			t.Fatalf("%s: %d %s", s.evt, rec.Code, rec.Body)
		}
	}
	e.processorEvent("evt_c1", id, "att_1", "cos_1", "fulfillment_complete", `,"transactionHash":"0x`+strings.Repeat("7", 64)+`","sourceAmountUsd":30`)
	if st := e.status(m, id); st["status"] != "paid" || st["processorToRefundUsd"] != nil {
		t.Fatalf("paid once: status %v, processorToRefundUsd %v (want it omitted)", st["status"], st["processorToRefundUsd"])
	}
	e.processorEvent("evt_c2", id, "att_2", "cos_2", "fulfillment_complete", `,"transactionHash":"0x`+strings.Repeat("8", 64)+`","sourceAmountUsd":25`)
	st := e.status(m, id)
	if st["processorPaymentsToRefund"] != 1.0 || st["processorToRefundUsd"] != 25.0 {
		t.Errorf("status read after the second card payment: processorPaymentsToRefund %v, processorToRefundUsd %v, want 1 and 25",
			st["processorPaymentsToRefund"], st["processorToRefundUsd"])
	}
	got := decode(t, e.dev(m, http.MethodGet, "/api/receipts/"+id, ""))["receipt"].(map[string]any)
	if got["processorToRefundUsd"] != 25.0 {
		t.Errorf("receipt read: processorToRefundUsd %v, want 25", got["processorToRefundUsd"])
	}
}
