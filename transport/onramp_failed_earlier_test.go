package transport

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/payledger/payledger/cmd/payledger/app"
	"github.com/payledger/payledger/transport/onramp"
)

// The customer leaves a card checkout (A), starts another (B) and pays A in its own tab; A's
// webhooks are lost, and B's expiry webhook fails the receipt on B. A receipt failed on its
// current attempt was off the reconciliation's list: nothing asked about A, the window expired
// the receipt, and A's success was recorded as ignored after the expiry (the customer paid, the
// receipt read failed). Now the list holds such a receipt while its window is open, and the
// reconciliation finds A's payment under way (the receipt pending on A) and then its completion
// (paid). A receipt whose earlier session has nothing under way stays failed and records nothing.
func TestReconcileFindsAnEarlierPaymentOfAReceiptFailedOnItsNewerSession(t *testing.T) {
	t.Parallel()
	fake, srv := newFakeProcessor(t)
	e := newAppEnv(t, func(c *app.Config) { c.Processor = onramp.New(srv.URL, "sk_test_1") }, nil, nil)
	m := e.merchant(true)
	start := func(id string) (session, attempt string) {
		rec := e.do(req{method: http.MethodPost, path: "/api/portal/" + id + "/onramp", body: `{}`})
		if rec.Code != 200 {
			t.Fatalf("onramp: %d %s", rec.Code, rec.Body)
		}
		out := decode(t, rec)
		return out["processorSessionId"].(string), out["attemptId"].(string)
	}
	id, idle := e.receiptFor(m, "10"), e.receiptFor(m, "10")
	sa, _ := start(id)
	sb, ab := start(id)
	_, _ = start(idle)
	si, ai := start(idle)
	for _, f := range []struct{ evt, receipt, attempt, session string }{{"evt_fb1", id, ab, sb}, {"evt_fi1", idle, ai, si}} {
		if rec := e.processorEvent(f.evt, f.receipt, f.attempt, f.session, "expired", ""); rec.Code != 200 {
			t.Fatalf("expired: %d %s", rec.Code, rec.Body)
		}
		fake.set(f.session, func(s *onramp.Session) { s.Status = "expired" })
	}
	if st := e.status(m, id); st["status"] != "failed" {
		t.Fatalf("after B's expiry: %v", st)
	}
	fake.set(sa, func(s *onramp.Session) { s.Status = "fulfillment_processing" }) // its webhook lost
	reconcile := func() map[string]any {
		rec := e.do(req{method: http.MethodPost, path: "/api/cron/reconcile", header: map[string]string{"x-cron-secret": testCronSecret}})
		if rec.Code != 200 {
			t.Fatalf("reconcile: %d %s", rec.Code, rec.Body)
		}
		return decode(t, rec)
	}
	if body := reconcile(); body["updated"] != 1.0 {
		t.Fatalf("reconcile with A under way: %v", body)
	}
	if st := e.status(m, id); st["status"] != "pending" || st["processorSessionId"] != sa {
		t.Fatalf("while A's payment is under way: %v", st)
	}
	if st := e.status(m, idle); st["status"] != "failed" {
		t.Fatalf("the receipt with nothing under way: %v", st)
	}
	fake.set(sa, func(s *onramp.Session) {
		paid := json.Number("10.00")
		s.Status, s.TransactionHash, s.SourceAmountUSD = "fulfillment_complete", "0x"+strings.Repeat("a", 64), &paid
	})
	if body := reconcile(); body["updated"] != 1.0 {
		t.Fatalf("reconcile with A complete: %v", body)
	}
	if st := e.status(m, id); st["status"] != "paid" {
		t.Fatalf("A's completion: %v", st)
	}
	if h := e.history(m, idle); countOf(h, "PaymentFailureIgnored") != 0 || countOf(h, "PaymentIgnored") != 0 {
		t.Fatalf("the idle receipt's history grew: %v", h)
	}
}
