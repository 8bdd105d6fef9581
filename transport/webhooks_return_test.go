package transport

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// A receipt that returns to a status it had before (paid, a partial refund requested, then
// processed: paid again) is told so: the receipt's webhook_url and a webhook endpoint both get a
// last receipt.status_updated that says paid, as the status read does (DESIGN 10: the last
// notification carries the final status). The return's idempotency key is the first paid's, so
// the outbox and the event log, which recorded a key once, told nothing: the merchant was left
// believing refund_requested.
func TestAStatusTheReceiptReturnsToIsToldAgain(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(true)
	hook, ep := newReceiver(t), newReceiver(t)
	e.createEndpoint(m, ep.srv.URL+"/ep", "receipt.status_updated")
	id := e.hookedReceipt(m, hook.srv.URL+"/hook")
	lastStatus := func(r *receiver, endpoint bool) string {
		got := r.all()
		if len(got) == 0 {
			return ""
		}
		var body struct {
			Status string `json:"status"`
			Data   struct {
				Status string `json:"status"`
			} `json:"data"`
		}
		if err := json.Unmarshal(got[len(got)-1].body, &body); err != nil {
			t.Fatalf("body %s: %v", got[len(got)-1].body, err)
		}
		if endpoint {
			return body.Data.Status
		}
		return body.Status
	}
	told := func(want string) {
		t.Helper()
		waitUntil(t, "both receivers told "+want, 10*time.Second, func() bool {
			return lastStatus(hook, false) == want && lastStatus(ep, true) == want
		})
	}
	e.pay(id, "evt_p")
	told("paid")
	refund := func(body string) {
		t.Helper()
		if rec := e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/receipts/refund", body); rec.Code != 200 {
			t.Fatalf("refund %s: %d %s", body, rec.Code, rec.Body)
		}
	}
	refund(`{"receiptId":"` + id + `","reason":"one item","amountUsd":10}`)
	told("refund_requested")
	refund(`{"receiptId":"` + id + `","reason":"one item","amountUsd":10,"transactionHash":"0x` + strings.Repeat("5", 64) + `"}`)
	if st := e.status(m, id); st["status"] != "paid" {
		t.Fatalf("status read after the refund: %v", st["status"])
	}
	told("paid")
}
