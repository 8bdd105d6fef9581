package transport

import (
	"net/http"
	"strings"
	"testing"
)

// TestASecondCardPaymentShowsInTheReads (stop 69, status): two card sessions of one receipt both
// complete (two tabs); the first pays it, the second is recorded as a duplicate payment to be
// refunded (PaymentIgnored). Only the receipt's history said so: the status read and the receipt
// read showed a receipt paid once, so the merchant was not shown the money it must give back.
// Both now count it in processorPaymentsToRefund; the same card payment reported again counts
// once, and a receipt paid once reads 0.
func TestASecondCardPaymentShowsInTheReads(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(true)
	id, once := e.receiptFor(m, "30"), e.receiptFor(m, "30")
	for _, s := range []struct{ evt, att, cos string }{{"evt_p1", "att_1", "cos_1"}, {"evt_p2", "att_2", "cos_2"}} {
		if rec := e.processorEvent(s.evt, id, s.att, s.cos, "fulfillment_processing", ""); rec.Code != http.StatusOK {
			t.Fatalf("%s: %d %s", s.evt, rec.Code, rec.Body)
		}
	}
	first := `,"transactionHash":"0x` + strings.Repeat("7", 64) + `","sourceAmountUsd":30`
	e.processorEvent("evt_c1", id, "att_1", "cos_1", "fulfillment_complete", first)
	e.processorEvent("evt_o1", once, "att_o", "cos_o", "fulfillment_complete", `,"transactionHash":"0x`+strings.Repeat("9", 64)+`","sourceAmountUsd":30`)
	if st := e.status(m, id); st["status"] != "paid" || st["processorPaymentsToRefund"] != 0.0 {
		t.Fatalf("paid once: status %v, processorPaymentsToRefund %v", st["status"], st["processorPaymentsToRefund"])
	}
	second := `,"transactionHash":"0x` + strings.Repeat("8", 64) + `","sourceAmountUsd":30`
	e.processorEvent("evt_c2", id, "att_2", "cos_2", "fulfillment_complete", second)
	e.processorEvent("evt_c3", id, "att_2", "cos_2", "fulfillment_complete", second) // the same payment, reported again
	if h := e.history(m, id); countOf(h, "PaymentIgnored") != 1 {
		t.Fatalf("history %v, want one PaymentIgnored for the second payment", h)
	}

	st := e.status(m, id)
	if st["status"] != "paid" || st["processorPaymentsToRefund"] != 1.0 {
		t.Errorf("status read after the second card payment: status %v, processorPaymentsToRefund %v, want paid and 1",
			st["status"], st["processorPaymentsToRefund"])
	}
	got := decode(t, e.dev(m, http.MethodGet, "/api/receipts/"+id, ""))["receipt"].(map[string]any)
	if got["processorPaymentsToRefund"] != 1.0 {
		t.Errorf("receipt read: processorPaymentsToRefund %v, want 1", got["processorPaymentsToRefund"])
	}
	if st := e.status(m, once); st["status"] != "paid" || st["processorPaymentsToRefund"] != 0.0 {
		t.Errorf("a receipt paid once: status %v, processorPaymentsToRefund %v", st["status"], st["processorPaymentsToRefund"])
	}
}
