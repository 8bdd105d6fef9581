package transport

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/payledger/payledger/cmd/payledger/app"
	"github.com/payledger/payledger/transport/onramp"
)

// TestThePageOffersPaymentAfterAShortACHCompletion: an accepted ACH payment completed short
// reopens the receipt (pending, its attempt ended), and its payment page shows the payment
// controls again, and says nothing is being confirmed, on the server-rendered page and in the
// status its script reads (inProgress). Before, the page read every pending receipt as a payment
// being confirmed: it hid the controls of the reopened receipt, whose customer could not pay.
// While the bank payment was accepted (ach_pending) and once a new session is open, they are hidden.
func TestThePageOffersPaymentAfterAShortACHCompletion(t *testing.T) {
	t.Parallel()
	fake, srv := newFakeProcessor(t)
	e := newAppEnv(t, func(c *app.Config) { c.Processor = onramp.New(srv.URL, "sk_test_1") }, nil, nil)
	m := e.merchant(true)
	id := e.receiptFor(m, "10")
	sid, attempt := pageStartOnramp(t, e, id)
	if rec := e.processorEvent("evt_page_ach1", id, attempt, sid, "ach_pending", ""); rec.Code != 200 {
		t.Fatalf("ach_pending: %d %s", rec.Code, rec.Body)
	}
	pagePayVisible(t, e, id, "ach_pending", false)
	fake.set(sid, func(s *onramp.Session) {
		short := json.Number("6.00")
		s.Status, s.TransactionHash, s.SourceAmountUSD = "fulfillment_complete", "0x"+strings.Repeat("7", 64), &short
	})
	rec := e.do(req{method: http.MethodPost, path: "/api/cron/reconcile", header: map[string]string{"x-cron-secret": testCronSecret}})
	if body := decode(t, rec); rec.Code != 200 || body["updated"] != 1.0 {
		t.Fatalf("reconcile: %d %v", rec.Code, body)
	}
	pagePayVisible(t, e, id, "pending", true)
	pageStartOnramp(t, e, id)
	pagePayVisible(t, e, id, "pending", false)
}

// pageStartOnramp starts a card or bank session from receipt id's payment page.
func pageStartOnramp(t *testing.T, e *env, id string) (session, attempt string) {
	t.Helper()
	rec := e.do(req{method: http.MethodPost, path: "/api/portal/" + id + "/onramp", body: `{}`})
	if rec.Code != 200 {
		t.Fatalf("onramp: %d %s", rec.Code, rec.Body)
	}
	out := decode(t, rec)
	return out["processorSessionId"].(string), out["attemptId"].(string)
}

// pagePayVisible checks receipt id's payment page: its status, and whether the payment controls
// are shown (and "A payment is being confirmed" is not), on the page and in the page's status JSON.
func pagePayVisible(t *testing.T, e *env, id, status string, visible bool) {
	t.Helper()
	html := e.do(req{method: http.MethodGet, path: "/portal/" + id}).Body.String()
	i := strings.Index(html, `<section id="pay"`)
	j := strings.Index(html, `<p id="in-progress"`)
	if i < 0 || j < 0 {
		t.Fatalf("%s: the page has no payment section or progress note:\n%s", status, html)
	}
	pay := html[i : i+strings.Index(html[i:], ">")]
	note := html[j : j+strings.Index(html[j:], ">")]
	if strings.Contains(pay, "hidden") == visible || strings.Contains(note, "hidden") != visible {
		t.Fatalf("%s: payment controls shown %v wanted; page has %q and %q", status, visible, pay, note)
	}
	st := decode(t, e.do(req{method: http.MethodGet, path: "/api/portal/" + id + "/status"}))
	if st["status"] != status || st["inProgress"] != !visible {
		t.Fatalf("%s: status JSON %v, want inProgress %v", status, st, !visible)
	}
}
