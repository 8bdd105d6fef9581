package transport

import (
	"net/http"
	"strings"
	"testing"
)

// Stop 71 (the refunds review): a second card payment the receipt does not count is refunded
// apart from the order through POST /api/receipts/refund with processorPayment: true, and the
// reads stop counting it: processorPaymentsToRefund 0, processorToRefundUsd omitted,
// processorRefundedUsd 25, the order's 30.00 still refundable and refundedUsd 0. A cent more,
// or the refund without its hash, is 400 and changes nothing. Before, the field was not read:
// the 25.00 was taken as the order's refund and the count stayed 1.
func TestASecondCardPaymentIsRefundedApart(t *testing.T) {
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
	e.processorEvent("evt_c2", id, "att_2", "cos_2", "fulfillment_complete", `,"transactionHash":"0x`+strings.Repeat("8", 64)+`","sourceAmountUsd":25`)
	refund := func(body string) (int, map[string]any) {
		rec := e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/receipts/refund", body)
		return rec.Code, decode(t, rec)
	}
	for name, body := range map[string]string{
		"a cent more":    `{"receiptId":"` + id + `","reason":"second card payment","amountUsd":25.01,"processorPayment":true,"transactionHash":"0x` + strings.Repeat("c1", 32) + `"}`,
		"without a hash": `{"receiptId":"` + id + `","reason":"second card payment","processorPayment":true}`,
	} {
		if code, b := refund(body); code != http.StatusBadRequest || b["error"] != "invalid_input" {
			t.Fatalf("%s: %d %v", name, code, b)
		}
	}
	code, b := refund(`{"receiptId":"` + id + `","reason":"second card payment","processorPayment":true,"transactionHash":"0x` + strings.Repeat("c2", 32) + `"}`)
	if code != http.StatusOK || b["processorRefundedUsd"] != 25.0 || b["processorPaymentsToRefund"] != 0.0 || b["unrefundedUsd"] != 30.0 || b["refundedUsd"] != 0.0 {
		t.Fatalf("refund of the second payment: %d %v", code, b)
	}
	st := e.status(m, id)
	refunds, _ := st["refunds"].([]any)
	if st["status"] != "paid" || st["processorPaymentsToRefund"] != 0.0 || st["processorToRefundUsd"] != nil || st["processorRefundedUsd"] != 25.0 ||
		st["refundedUsd"] != 0.0 || len(refunds) != 1 || refunds[0].(map[string]any)["processorPayment"] != true {
		t.Fatalf("status read: %s, %v to refund (%v), processorRefundedUsd %v, refundedUsd %v, refunds %v", st["status"], st["processorPaymentsToRefund"],
			st["processorToRefundUsd"], st["processorRefundedUsd"], st["refundedUsd"], st["refunds"])
	}
	got := decode(t, e.dev(m, http.MethodGet, "/api/receipts/"+id, ""))["receipt"].(map[string]any)
	if got["processorPaymentsToRefund"] != 0.0 || got["processorRefundedUsd"] != 25.0 {
		t.Fatalf("receipt read: %v, %v", got["processorPaymentsToRefund"], got["processorRefundedUsd"])
	}
	if code, b := refund(`{"receiptId":"` + id + `","reason":"returned","transactionHash":"0x` + strings.Repeat("c3", 32) + `"}`); code != http.StatusOK || b["refundedUsd"] != 30.0 || b["status"] != "refunded" {
		t.Fatalf("the order's 30.00: %d %v", code, b)
	}
}
