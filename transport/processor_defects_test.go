package transport

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/payledger/payledger/cmd/payledger/app"
	"github.com/payledger/payledger/readmodels"
	"github.com/payledger/payledger/transport/onramp"
)

// countOf is how many times typ is in the history h.
func countOf(h []string, typ string) int {
	n := 0
	for _, t := range h {
		if t == typ {
			n++
		}
	}
	return n
}

// A signed success whose source amount is below the total pays nothing: recorded as
// PaymentIgnored (underpaid, with the amount), the status unchanged, no webhook; a success
// without an amount confirms nothing; the full amount pays.
func TestProcessorUnderpaymentDoesNotPay(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(true)
	id := e.receiptFor(m, "100")
	hash := `,"transactionHash":"0x` + strings.Repeat("1", 64) + `"`
	if rec := e.processorEvent("evt_u1", id, "att_1", "cos_1", "fulfillment_complete", hash+`,"sourceAmountUsd":1.00`); rec.Code != 200 {
		t.Fatalf("underpaid: %d %s", rec.Code, rec.Body)
	}
	if st := e.status(m, id); st["status"] != "generated" || st["processorSourceAmountUsd"] != nil {
		t.Fatalf("underpaid success paid the receipt: %v", st)
	}
	if h := e.history(m, id); countOf(h, "PaymentIgnored") != 1 || countOf(h, "PaymentConfirmed") != 0 {
		t.Fatalf("history %v", h)
	}
	var why, units string
	if err := e.pool.QueryRow(context.Background(), `SELECT data->>'why', data->>'amountUnits' FROM events WHERE stream_id = $1 AND type = 'PaymentIgnored'`,
		"receipt-"+id).Scan(&why, &units); err != nil || !strings.Contains(why, "underpaid") || !strings.Contains(why, "1.00 USD of the 100.00 USD due") || units != "100" {
		t.Fatalf("ignored: %q %q %v", why, units, err)
	}
	// Half a cent short is short: amounts compare exactly.
	e.processorEvent("evt_u2", id, "att_2", "cos_2", "fulfillment_complete", `,"transactionHash":"0x`+strings.Repeat("2", 64)+`","sourceAmountUsd":99.995`)
	// No amount: not verified, nothing confirmed.
	e.processorEvent("evt_u3", id, "att_3", "cos_3", "fulfillment_complete", `,"transactionHash":"0x`+strings.Repeat("3", 64)+`","sourceAmountUsd":null`)
	if st := e.status(m, id); st["status"] != "generated" {
		t.Fatalf("short or unverified success paid the receipt: %v", st)
	}
	e.processorEvent("evt_u4", id, "att_4", "cos_4", "fulfillment_complete", `,"transactionHash":"0x`+strings.Repeat("4", 64)+`","sourceAmountUsd":100`)
	if st := e.status(m, id); st["status"] != "paid" || st["processorSourceAmountUsd"] != 100.0 {
		t.Fatalf("the full amount did not pay: %v", st)
	}
}

// A session the service started for receipt A, reported by the processor for receipt B, pays
// nothing on B (recorded as PaymentIgnored) and is a shared session.
func TestProcessorSessionOfAnotherReceiptDoesNotPay(t *testing.T) {
	t.Parallel()
	_, srv := newFakeProcessor(t)
	e := newAppEnv(t, func(c *app.Config) { c.Processor = onramp.New(srv.URL, "sk_test_1") }, nil, nil)
	m := e.merchant(true)
	a, b := e.receiptFor(m, "10"), e.receiptFor(m, "10")
	rec := e.do(req{method: http.MethodPost, path: "/api/portal/" + a + "/onramp", body: `{}`})
	if rec.Code != 200 {
		t.Fatalf("onramp: %d %s", rec.Code, rec.Body)
	}
	sid := decode(t, rec)["processorSessionId"].(string)
	if rec := e.processorEvent("evt_s1", b, "att_x", sid, "fulfillment_complete",
		`,"transactionHash":"0x`+strings.Repeat("5", 64)+`","sourceAmountUsd":10`); rec.Code != 200 {
		t.Fatalf("event: %d %s", rec.Code, rec.Body)
	}
	if st := e.status(m, b); st["status"] != "generated" || st["isProcessorSessionUnique"] == true {
		t.Fatalf("receipt B paid by A's session: %v", st)
	}
	if h := e.history(m, b); countOf(h, "PaymentIgnored") != 1 || slices.Contains(h, "PaymentAttemptStarted") {
		t.Fatalf("history of B %v", h)
	}
	shared, err := readmodels.NewProcessorEvents(e.pool).SessionShared(context.Background(), sid, b)
	if err != nil || !shared {
		t.Fatalf("shared %v %v", shared, err)
	}
	if owner, err := readmodels.NewProcessorEvents(e.pool).SessionOwner(context.Background(), sid); err != nil || owner != a {
		t.Fatalf("owner %q %v, want %s", owner, err, a)
	}
	// For its own receipt it pays, even without the amount ("when available", spec): the service
	// asked the processor for the amount due when it started the session.
	e.processorEvent("evt_s2", a, "", sid, "fulfillment_complete", `,"transactionHash":"0x`+strings.Repeat("6", 64)+`","sourceAmountUsd":null`)
	if st := e.status(m, a); st["status"] != "paid" || st["isProcessorSessionUnique"] != true {
		t.Fatalf("receipt A: %v", st)
	}
}

// A late fulfillment_processing or ach_pending of the attempt a receipt failed on leaves it
// failed; a new attempt moves it on.
func TestProcessorLateProgressKeepsTheReceiptFailed(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(true)
	id := e.receiptFor(m, "20")
	e.processorEvent("evt_f1", id, "att_1", "cos_1", "fulfillment_processing", "")
	e.processorEvent("evt_f2", id, "att_1", "cos_1", "rejected", `,"errorCode":"card_declined"`)
	if st := e.status(m, id); st["status"] != "failed" {
		t.Fatalf("rejected: %v", st)
	}
	for _, ev := range []struct{ id, status string }{{"evt_f3", "fulfillment_processing"}, {"evt_f4", "ach_pending"}} {
		e.processorEvent(ev.id, id, "att_1", "cos_1", ev.status, "")
		if st := e.status(m, id); st["status"] != "failed" || st["failureCode"] == nil {
			t.Fatalf("late %s moved the failed receipt: %v", ev.status, st)
		}
	}
	e.processorEvent("evt_f5", id, "att_2", "cos_2", "fulfillment_processing", "")
	if st := e.status(m, id); st["status"] != "pending" {
		t.Fatalf("a new attempt: %v", st)
	}
}

// A second paid session on a paid receipt is a duplicate payment, recorded once for the
// refund; a redelivery of the confirmation that paid it changes nothing.
func TestProcessorSecondPaymentOfAPaidReceiptIsRecorded(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(true)
	id := e.receiptFor(m, "30")
	e.processorEvent("evt_d1", id, "att_1", "cos_1", "fulfillment_complete", `,"transactionHash":"0x`+strings.Repeat("7", 64)+`","sourceAmountUsd":30`)
	if st := e.status(m, id); st["status"] != "paid" {
		t.Fatalf("paid: %v", st)
	}
	e.processorEvent("evt_d2", id, "att_1", "cos_1", "fulfillment_complete", `,"transactionHash":"0x`+strings.Repeat("7", 64)+`","sourceAmountUsd":30`)
	if h := e.history(m, id); countOf(h, "PaymentIgnored") != 0 || countOf(h, "PaymentConfirmed") != 1 {
		t.Fatalf("a redelivery left a trace: %v", h)
	}
	second := `,"transactionHash":"0x` + strings.Repeat("8", 64) + `","sourceAmountUsd":30`
	e.processorEvent("evt_d3", id, "att_2", "cos_2", "fulfillment_complete", second)
	e.processorEvent("evt_d4", id, "att_2", "cos_2", "fulfillment_complete", second) // redelivered under a new id
	if st := e.status(m, id); st["status"] != "paid" || st["transactionHash"] != "0x"+strings.Repeat("7", 64) {
		t.Fatalf("after the second payment: %v", st)
	}
	if h := e.history(m, id); countOf(h, "PaymentIgnored") != 1 {
		t.Fatalf("history %v, want one PaymentIgnored for the duplicate payment", h)
	}
	var why string
	if err := e.pool.QueryRow(context.Background(), `SELECT data->>'why' FROM events WHERE stream_id = $1 AND type = 'PaymentIgnored'`, "receipt-"+id).Scan(&why); err != nil ||
		!strings.Contains(why, "duplicate payment") || !strings.Contains(why, "cos_2") || !strings.Contains(why, "30") {
		t.Fatalf("why %q %v", why, err)
	}
}
