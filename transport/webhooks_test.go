package transport

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/webhooks"
)

// The dispatcher's claim size and lease, for the tests that claim by hand.
const claimBatch, leaseFor = 16, 30 * time.Second

type received struct {
	header http.Header
	body   []byte
	at     time.Time
}

// receiver is a real local HTTP receiver whose answers the test scripts.
type receiver struct {
	mu      sync.Mutex
	got     []received
	answers []int         // status per request in order; 200 once exhausted
	hang    time.Duration // sleep before answering
	srv     *httptest.Server
}

func newReceiver(t *testing.T, answers ...int) *receiver {
	r := &receiver{answers: answers}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.got = append(r.got, received{header: req.Header.Clone(), body: body, at: time.Now()})
		code := 200
		if len(r.answers) > 0 {
			code, r.answers = r.answers[0], r.answers[1:]
		}
		hang := r.hang
		r.mu.Unlock()
		if hang > 0 {
			time.Sleep(hang)
		}
		w.WriteHeader(code)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) count() int { r.mu.Lock(); defer r.mu.Unlock(); return len(r.got) }

func (r *receiver) all() []received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]received(nil), r.got...)
}

func waitUntil(t *testing.T, what string, d time.Duration, cond func() bool) {
	t.Helper()
	wait.Until(t, what, d, cond)
}

func (e *env) hookedReceipt(m merchant, url string) string {
	e.t.Helper()
	rec := e.dev(m, http.MethodPost, "/api/receipts", `{"lineItems":[{"label":"Order","priceUsd":42}],"totalUsd":42,"webhook_url":"`+url+`","transactionId":"ord-9","metadata":{"k":"v"}}`)
	if rec.Code != 201 {
		e.t.Fatalf("receipt: %d %s", rec.Code, rec.Body)
	}
	return decode(e.t, rec)["receipt"].(map[string]any)["receiptId"].(string)
}

func (e *env) pay(id, evt string) {
	e.t.Helper()
	if rec := e.processorEvent(evt, id, "att_1", "cos_1", "fulfillment_complete", `,"transactionHash":"0x`+strings.Repeat("A", 64)+`","walletAddress":"0x`+strings.Repeat("b", 40)+`"`); rec.Code != 200 {
		e.t.Fatalf("pay: %d %s", rec.Code, rec.Body)
	}
}

func TestWebhookSignatureHeadersAndPayload(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(true)
	r := newReceiver(t)
	id := e.hookedReceipt(m, r.srv.URL+"/hook")
	// Telemetry and ignored failures queue nothing.
	e.do(req{method: http.MethodPost, path: "/api/portal/" + id + "/telemetry", body: `{"event":"checkout_initialized"}`})
	e.processorEvent("evt_f", id, "att_unknown", "cos_x", "rejected", `,"errorCode":"card_declined"`)
	e.pay(id, "evt_p")
	// The payment's webhook is queued after anything the two above could have queued, and the
	// dispatcher sends in queue order: the first delivery is the payment's, and the only one.
	waitUntil(t, "delivery", 10*time.Second, func() bool { return r.count() >= 1 })
	got := r.all()[0]
	var first map[string]any
	_ = json.Unmarshal(got.body, &first)
	if n := r.count(); n != 1 || first["status"] != "paid" {
		t.Fatalf("%d webhooks, the first %v: telemetry or an ignored failure sent one", n, first["status"])
	}
	h := got.header
	mac := hmac.New(sha256.New, []byte(m.key))
	mac.Write(got.body)
	want := "sha256=" + hex.EncodeToString(mac.Sum(nil))
	if !hmac.Equal([]byte(h.Get("X-Service-Signature")), []byte(want)) {
		t.Fatalf("signature %q does not verify with the merchant's key", h.Get("X-Service-Signature"))
	}
	other := hmac.New(sha256.New, []byte("plk_some_other_key"))
	other.Write(got.body)
	if h.Get("X-Service-Signature") == "sha256="+hex.EncodeToString(other.Sum(nil)) {
		t.Fatal("signature verifies with another key")
	}
	key := "receipt-status:" + id + ":paid:0x" + strings.Repeat("a", 64)
	if h.Get("Content-Type") != "application/json" || h.Get("X-Service-Event") != "receipt.status_updated" || len(h.Get("X-Service-Delivery")) != 36 ||
		h.Get("X-Service-Idempotency-Key") != key || h.Get("User-Agent") != "Service-Webhook/1.0" || len(h.Get("X-Service-Timestamp")) != 13 {
		t.Fatalf("headers %v", h)
	}
	var p map[string]any
	if err := json.Unmarshal(got.body, &p); err != nil {
		t.Fatal(err)
	}
	types := map[string]string{"event": "string", "idempotencyKey": "string", "receiptId": "string", "status": "string", "previousStatus": "string",
		"failureCode": "null", "failureCategory": "null", "failureReason": "null", "failureAction": "null", "providerErrorCode": "null",
		"providerRequestId": "null", "transactionHash": "string", "buyerWallet": "string", "merchantWallet": "string", "totalUsd": "number",
		"customerTotalUsd": "number", "processorSourceAmountUsd": "number", "processorSessionId": "string", "isProcessorSessionUnique": "bool",
		"transactionId": "string", "metadata": "object", "token": "string", "brandKey": "string", "timestamp": "number",
		"depositAddress": "null", "amountRequired": "string", "amountReceived": "null", "paidLate": "bool", // DESIGN 9: no deposit, nothing seen
		"refundedUsd": "number", "refunds": "array", // DESIGN 10
		"amountToken": "string", "processorPaymentsToRefund": "number"} // stop 69
	for f, typ := range types {
		v, ok := p[f]
		if !ok {
			t.Errorf("payload lacks %s", f)
			continue
		}
		var got string
		switch v.(type) {
		case nil:
			got = "null"
		case string:
			got = "string"
		case float64:
			got = "number"
		case bool:
			got = "bool"
		case map[string]any:
			got = "object"
		case []any:
			got = "array"
		}
		if got != typ {
			t.Errorf("%s is %s (%v), want %s", f, got, v, typ)
		}
	}
	if len(p) != len(types) {
		t.Errorf("payload has %d fields, want %d: %v", len(p), len(types), p)
	}
	if p["idempotencyKey"] != key || p["status"] != "paid" || p["previousStatus"] != "generated" || p["totalUsd"] != 42.0 {
		t.Fatalf("payload %v", p)
	}
	// The attempt is recorded once the receiver's answer is back, a moment after it arrived.
	waitUntil(t, "the delivery to be recorded", 3*time.Second, func() bool { return e.status(m, id)["webhookDelivery"] == "delivered" })
}

// firstFailsThenRetried pays a receipt whose webhook receiver answers 500, then 200, each after
// hang, and returns the env, merchant and receipt with the two requests once the retry came.
func firstFailsThenRetried(t *testing.T, hang time.Duration) (*env, merchant, string, []received) {
	t.Helper()
	e := newEnv(t, nil)
	m := e.merchant(true)
	r := newReceiver(t, 500, 200)
	r.mu.Lock()
	r.hang = hang
	r.mu.Unlock()
	id := e.hookedReceipt(m, r.srv.URL)
	e.pay(id, "evt_1")
	waitUntil(t, "retry", 10*time.Second, func() bool { return r.count() == 2 })
	return e, m, id, r.all()
}

func TestWebhookRetryKeepsDeliveryID(t *testing.T) {
	t.Parallel()
	e, m, id, got := firstFailsThenRetried(t, 0)
	if gap := got[1].at.Sub(got[0].at); gap < 250*time.Millisecond {
		t.Fatalf("retry came %v after the first attempt, want the retry delay", gap)
	}
	if got[0].header.Get("X-Service-Delivery") != got[1].header.Get("X-Service-Delivery") {
		t.Fatal("the automatic retry changed the delivery id")
	}
	waitUntil(t, "delivered", 5*time.Second, func() bool { return e.status(m, id)["webhookDelivery"] == "delivered" })
	log := decode(t, e.dev(m, http.MethodGet, "/api/webhooks/deliveries?receiptId="+id, ""))["deliveries"].([]any)
	if len(log) != 2 || log[0].(map[string]any)["httpStatus"] != 200.0 || log[1].(map[string]any)["httpStatus"] != 500.0 || log[1].(map[string]any)["kind"] != "first" {
		t.Fatalf("delivery log %v", log)
	}
}

// The automatic retry comes the retry delay (300 ms here) after the failed attempt ends, however
// long that attempt took: a first attempt answered after 200 ms is retried no sooner than 500 ms
// after it arrived (counted from the attempt's start, it came about 300 ms after).
func TestWebhookRetryCountsFromTheFailedAttemptsEnd(t *testing.T) {
	t.Parallel()
	_, _, _, got := firstFailsThenRetried(t, 200*time.Millisecond)
	if gap := got[1].at.Sub(got[0].at); gap < 500*time.Millisecond {
		t.Fatalf("retry came %v after the first attempt, which took 200 ms: want the retry delay after its end", gap)
	}
}

func TestWebhookMarkerThenReconciliation(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(true)
	r := newReceiver(t, 503, 503)
	id := e.hookedReceipt(m, r.srv.URL)
	e.pay(id, "evt_1")
	waitUntil(t, "both attempts", 10*time.Second, func() bool { return r.count() == 2 })
	waitUntil(t, "marker", 5*time.Second, func() bool { return e.count("webhook_notifications WHERE state = 'marked'") == 1 })
	if st := e.status(m, id); st["webhookDelivery"] != "pending" {
		t.Fatalf("marked notification shows %v", st["webhookDelivery"])
	}
	// Receiver is up again; reconciliation delivers with a new delivery id, and exactly three
	// requests in all say that the dispatcher did not retry the marked notification by itself.
	rec := e.do(req{method: http.MethodPost, path: "/api/cron/reconcile", header: map[string]string{"x-cron-secret": testCronSecret}})
	if body := decode(t, rec); rec.Code != 200 || body["webhooksDelivered"] != 1.0 {
		t.Fatalf("reconcile: %d %v", rec.Code, body)
	}
	got := r.all()
	if len(got) != 3 || got[2].header.Get("X-Service-Delivery") == got[1].header.Get("X-Service-Delivery") {
		t.Fatalf("reconciliation delivery: %d requests", len(got))
	}
	if st := e.status(m, id); st["webhookDelivery"] != "delivered" {
		t.Fatalf("after reconciliation: %v", st["webhookDelivery"])
	}
}

func TestWebhookTimeoutAndGivingUp(t *testing.T) {
	t.Parallel()
	e := newEnvWith(t, nil, func(d *webhooks.Dispatcher) { d.Timeout = 300 * time.Millisecond })
	m := e.merchant(true)
	r := newReceiver(t)
	r.hang = 2 * time.Second
	id := e.hookedReceipt(m, r.srv.URL)
	e.pay(id, "evt_1")
	waitUntil(t, "marker after two timeouts", 15*time.Second, func() bool { return e.count("webhook_notifications WHERE state = 'marked'") == 1 })
	log := decode(t, e.dev(m, http.MethodGet, "/api/webhooks/deliveries?receiptId="+id, ""))["deliveries"].([]any)
	if len(log) != 2 || log[0].(map[string]any)["error"] == nil || !strings.Contains(strings.ToLower(log[0].(map[string]any)["error"].(string)), "timeout") {
		t.Fatalf("timeouts not recorded: %v", log)
	}
	// After 3 days of failed reconciliation the notification is failed.
	if _, err := e.pool.Exec(context.Background(), `UPDATE webhook_notifications SET marked_at = now() - interval '73 hours'`); err != nil {
		t.Fatal(err)
	}
	e.do(req{method: http.MethodPost, path: "/api/cron/reconcile", header: map[string]string{"x-cron-secret": testCronSecret}})
	if st := e.status(m, id); st["webhookDelivery"] != "failed" {
		t.Fatalf("after 3 days: %v", st["webhookDelivery"])
	}
}

func TestWebhookRetryCarriesTheNewStatus(t *testing.T) {
	t.Parallel()
	// The retry is due a minute after the failed first attempt, so the status change always comes
	// before it: with a second, a slow CI run paid the receipt after the retry had delivered the
	// old status (the receiver answers 200 from its second request), and the change was rightly
	// queued as a second notification. The change re-aims the open notification and makes it due
	// at once, so the new status goes out without waiting for the retry's delay.
	e := newEnvWith(t, nil, func(d *webhooks.Dispatcher) { d.RetryDelay = time.Minute })
	m := e.merchant(true)
	r := newReceiver(t, 500)
	id := e.hookedReceipt(m, r.srv.URL)
	if rec := e.processorEvent("evt_1", id, "att_1", "cos_1", "fulfillment_processing", ""); rec.Code != 200 {
		t.Fatal(rec.Body)
	}
	waitUntil(t, "first attempt", 5*time.Second, func() bool { return r.count() == 1 })
	e.pay(id, "evt_2") // status changes before the retry
	lastStatus := func() any {
		got := r.all()
		var last map[string]any
		_ = json.Unmarshal(got[len(got)-1].body, &last)
		return last["status"]
	}
	waitUntil(t, "a delivery of the new status", 10*time.Second, func() bool { return r.count() >= 2 && lastStatus() == "paid" })
	got := r.all()
	var first, last map[string]any
	_ = json.Unmarshal(got[0].body, &first)
	_ = json.Unmarshal(got[len(got)-1].body, &last)
	if first["status"] != "pending" || last["status"] != "paid" || got[len(got)-1].header.Get("X-Service-Idempotency-Key") != last["idempotencyKey"] {
		t.Fatalf("first %v, last %v", first["status"], last["status"])
	}
	if n := e.count("webhook_notifications"); n != 1 {
		t.Fatalf("%d notifications, want one coalesced", n)
	}
}

func TestTwoDispatchersSendEachCycleOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	second := (&webhooks.Dispatcher{Outbox: e.outbox, Keys: e.webhookKeys, Events: e.svc.Events, Log: zerolog.Nop(),
		RetryDelay: 300 * time.Millisecond, Timeout: time.Second}).Init()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = second.Run(ctx) }()
	defer func() { cancel(); <-done }()
	m := e.merchant(true)
	r := newReceiver(t)
	var ids []string
	for i := range 20 {
		id := e.hookedReceipt(m, r.srv.URL)
		ids = append(ids, id)
		e.pay(id, "evt_"+id+"_"+string(rune('a'+i)))
	}
	waitUntil(t, "20 deliveries", 15*time.Second, func() bool { return r.count() >= 20 })
	// A later cycle delivered is the signal that nothing of the first 20 is still to come twice.
	later := e.hookedReceipt(m, r.srv.URL)
	e.pay(later, "evt_"+later+"_later")
	waitUntil(t, "the later delivery", 15*time.Second, func() bool { return r.count() >= 21 })
	seen := map[string]int{}
	for _, g := range r.all() {
		seen[g.header.Get("X-Service-Delivery")]++
	}
	if r.count() != 21 || len(seen) != 21 {
		t.Fatalf("%d requests for %d delivery ids, want 21 and 21", r.count(), len(seen))
	}
}

func TestProductionRefusesInternalAddressesAtSendTime(t *testing.T) {
	t.Parallel()
	e := newEnvWith(t, nil, func(d *webhooks.Dispatcher) { d.Production = true })
	m := e.merchant(true)
	r := newReceiver(t)
	for _, url := range []string{strings.Replace(r.srv.URL, "http://", "https://", 1), "https://10.0.0.1/hook", "https://localhost:1/x", "http://hooks.example/x"} {
		id := e.hookedReceipt(m, url)
		e.pay(id, "evt_"+id)
		waitUntil(t, "refused attempt", 10*time.Second, func() bool {
			log := decode(t, e.dev(m, http.MethodGet, "/api/webhooks/deliveries?receiptId="+id, ""))["deliveries"].([]any)
			return len(log) > 0
		})
		log := decode(t, e.dev(m, http.MethodGet, "/api/webhooks/deliveries?receiptId="+id, ""))["deliveries"].([]any)
		errText, _ := log[0].(map[string]any)["error"].(string)
		if log[0].(map[string]any)["httpStatus"] != nil || !(errText == webhooks.ErrorDNS || errText == webhooks.ErrorInvalidURL) {
			t.Errorf("%s: %v", url, log[0])
		}
	}
	if r.count() != 0 {
		t.Fatalf("the receiver on 127.0.0.1 got %d requests", r.count())
	}
}

func TestRedeliver(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(true)
	r := newReceiver(t)
	id := e.hookedReceipt(m, r.srv.URL)
	e.pay(id, "evt_1")
	waitUntil(t, "delivery", 10*time.Second, func() bool { return r.count() == 1 })
	var log []any // the delivery is recorded just after the receiver answered
	waitUntil(t, "delivery record", 10*time.Second, func() bool {
		log, _ = decode(t, e.dev(m, http.MethodGet, "/api/webhooks/deliveries", ""))["deliveries"].([]any)
		return len(log) > 0
	})
	did := log[0].(map[string]any)["id"].(string)
	other := e.merchant(true)
	if rec := e.adminCall(other.cookies, other.csrf, http.MethodPost, "/api/webhooks/deliveries/"+did+"/redeliver", ""); rec.Code != 404 {
		t.Fatalf("another merchant redelivering: %d", rec.Code)
	}
	rec := e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/webhooks/deliveries/"+did+"/redeliver", "")
	if body := decode(t, rec); rec.Code != 200 || body["ok"] != true {
		t.Fatalf("redeliver: %d %v", rec.Code, body)
	}
	got := r.all()
	if len(got) != 2 || got[1].header.Get("X-Service-Idempotency-Key") != got[0].header.Get("X-Service-Idempotency-Key") ||
		got[1].header.Get("X-Service-Delivery") == got[0].header.Get("X-Service-Delivery") {
		t.Fatalf("redelivery headers: %v / %v", got[0].header, got[1].header)
	}
	if rec := e.dev(m, http.MethodGet, "/api/webhooks/deliveries?limit=1", ""); decode(t, rec)["next"] == nil {
		t.Fatal("no next cursor with 2 deliveries and limit 1")
	}
}

func TestPartnerBrandTwins(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(true)
	if rec := e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/shop/config", `{"brandKey":"acme"}`); rec.Code != 200 {
		t.Fatalf("brand key: %d %s", rec.Code, rec.Body)
	}
	if rec := e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/shop/config", `{"brandKey":"a-b"}`); rec.Code != 400 {
		t.Fatalf("bad brand key: %d", rec.Code)
	}
	r := newReceiver(t)
	id := e.hookedReceipt(m, r.srv.URL)
	e.pay(id, "evt_b")
	waitUntil(t, "delivery", 10*time.Second, func() bool { return r.count() == 1 })
	h := r.all()[0].header
	for _, name := range []string{"Signature", "Event", "Delivery", "Idempotency-Key", "Timestamp"} {
		if h.Get("X-Acme-"+name) == "" || h.Get("X-Acme-"+name) != h.Get("X-Service-"+name) {
			t.Errorf("X-Acme-%s = %q, X-Service-%s = %q", name, h.Get("X-Acme-"+name), name, h.Get("X-Service-"+name))
		}
	}
	if h.Get("User-Agent") != "Acme-Webhook/1.0" {
		t.Errorf("user agent %q", h.Get("User-Agent"))
	}
	var p map[string]any
	_ = json.Unmarshal(r.all()[0].body, &p)
	if p["brandKey"] != "acme" || e.status(m, id)["brandKey"] != "acme" {
		t.Fatalf("brandKey %v", p["brandKey"])
	}
}
