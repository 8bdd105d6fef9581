package transport

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/payledger/payledger/cmd/payledger/app"
	"github.com/payledger/payledger/transport/onramp"
)

// An accepted ACH payment (ach_pending) that the processor completes with less than is due, as
// the scheduled reconciliation reads its session: the receipt pays nothing and is pending again,
// with the short payment (6.00 of 10.00) in its history for a refund. It stayed "Bank payment
// pending" for good: no event left ach_pending, the window never expired it, and a new card or
// bank payment was refused. Now the customer can start another, asked for what is due.
func TestAShortACHCompletionReopensTheReceipt(t *testing.T) {
	t.Parallel()
	fake, srv := newFakeProcessor(t)
	e := newAppEnv(t, func(c *app.Config) { c.Processor = onramp.New(srv.URL, "sk_test_1") }, nil, nil)
	m := e.merchant(true)
	id := e.receiptFor(m, "10")
	rec := e.do(req{method: http.MethodPost, path: "/api/portal/" + id + "/onramp", body: `{}`})
	if rec.Code != 200 {
		t.Fatalf("onramp: %d %s", rec.Code, rec.Body)
	}
	out := decode(t, rec)
	sid, attempt := out["processorSessionId"].(string), out["attemptId"].(string)
	if rec := e.processorEvent("evt_ach1", id, attempt, sid, "ach_pending", ""); rec.Code != 200 {
		t.Fatalf("ach_pending: %d %s", rec.Code, rec.Body)
	}
	if st := e.status(m, id); st["status"] != "ach_pending" {
		t.Fatalf("accepted: %v", st)
	}
	fake.set(sid, func(s *onramp.Session) {
		short := json.Number("6.00")
		s.Status, s.TransactionHash, s.SourceAmountUSD = "fulfillment_complete", "0x"+strings.Repeat("6", 64), &short
	})
	rec = e.do(req{method: http.MethodPost, path: "/api/cron/reconcile", header: map[string]string{"x-cron-secret": testCronSecret}})
	if body := decode(t, rec); rec.Code != 200 || body["updated"] != 1.0 {
		t.Fatalf("reconcile: %d %v", rec.Code, body)
	}
	if st := e.status(m, id); st["status"] != "pending" || st["processorSourceAmountUsd"] != nil {
		t.Fatalf("after the short completion: %v", st)
	}
	if h := e.history(m, id); countOf(h, "PaymentIgnored") != 1 || countOf(h, "PaymentConfirmed") != 0 {
		t.Fatalf("history %v", h)
	}
	var why, units string
	var reopened bool
	if err := e.pool.QueryRow(t.Context(), `SELECT data->>'why', data->>'amountUnits', (data->>'reopened')::boolean FROM events
		WHERE stream_id = $1 AND type = 'PaymentIgnored'`, "receipt-"+id).Scan(&why, &units, &reopened); err != nil ||
		!strings.Contains(why, "6.00 USD of the 10.00 USD due") || units != "600" || !reopened {
		t.Fatalf("ignored: %q %q %v %v", why, units, reopened, err)
	}
	rec = e.do(req{method: http.MethodPost, path: "/api/portal/" + id + "/onramp", body: `{}`})
	if rec.Code != 200 || len(fake.created) != 2 || fake.created[1].AmountUSD.String() != "10.00" {
		t.Fatalf("a new payment after the short one: %d %s %+v", rec.Code, rec.Body, fake.created)
	}
}
