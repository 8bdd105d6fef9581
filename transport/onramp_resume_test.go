package transport

import (
	"net/http"
	"strings"
	"testing"

	"github.com/payledger/payledger/cmd/payledger/app"
	"github.com/payledger/payledger/transport/onramp"
)

// The customer leaves a card checkout (A), starts another (B), and pays A in its own tab; the
// processor then expires B. A's processing report recorded nothing (not the current attempt) and
// B's expiry failed the receipt while A's payment was being completed. Now A's report makes it
// the current attempt again: B's expiry is recorded as ignored, the receipt stays pending (its
// window held by A), and A's completion pays it.
func TestAnEarlierCheckoutPaidInItsTabKeepsTheReceipt(t *testing.T) {
	t.Parallel()
	_, srv := newFakeProcessor(t)
	e := newAppEnv(t, func(c *app.Config) { c.Processor = onramp.New(srv.URL, "sk_test_1") }, nil, nil)
	m := e.merchant(true)
	id := e.receiptFor(m, "10")
	start := func() (session, attempt string) {
		rec := e.do(req{method: http.MethodPost, path: "/api/portal/" + id + "/onramp", body: `{}`})
		if rec.Code != 200 {
			t.Fatalf("onramp: %d %s", rec.Code, rec.Body)
		}
		out := decode(t, rec)
		return out["processorSessionId"].(string), out["attemptId"].(string)
	}
	sa, aa := start()
	sb, ab := start()
	if rec := e.processorEvent("evt_ra1", id, aa, sa, "fulfillment_processing", ""); rec.Code != 200 {
		t.Fatalf("A processing: %d %s", rec.Code, rec.Body)
	}
	if rec := e.processorEvent("evt_rb1", id, ab, sb, "expired", ""); rec.Code != 200 {
		t.Fatalf("B expired: %d %s", rec.Code, rec.Body)
	}
	if st := e.status(m, id); st["status"] != "pending" || st["failureCode"] != nil || st["processorSessionId"] != sa {
		t.Fatalf("while A's payment is under way: %v", st)
	}
	if h := e.history(m, id); countOf(h, "PaymentFailed") != 0 || countOf(h, "PaymentFailureIgnored") != 1 || countOf(h, "PaymentSubmitted") != 1 {
		t.Fatalf("history %v", h)
	}
	e.processorEvent("evt_ra2", id, aa, sa, "fulfillment_complete", `,"transactionHash":"0x`+strings.Repeat("a", 64)+`","sourceAmountUsd":10`)
	if st := e.status(m, id); st["status"] != "paid" {
		t.Fatalf("A's completion: %v", st)
	}
}
