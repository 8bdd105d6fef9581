package transport

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payledger/payledger/cmd/payledger/app"
	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/transport/onramp"
)

// fakeProcessor speaks the documented session API.
type fakeProcessor struct {
	mu       sync.Mutex
	sessions map[string]onramp.Session
	created  []onramp.CreateRequest
	auth     []string
}

func newFakeProcessor(t *testing.T) (*fakeProcessor, *httptest.Server) {
	f := &fakeProcessor{sessions: map[string]onramp.Session{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.auth = append(f.auth, r.Header.Get("Authorization"))
		switch {
		case r.Method == http.MethodPost && r.URL.Path == "/v1/onramp_sessions":
			var req onramp.CreateRequest
			_ = json.NewDecoder(r.Body).Decode(&req)
			f.created = append(f.created, req)
			s := onramp.Session{ID: fmt.Sprintf("cos_%d", len(f.created)), Status: "created", RedirectURL: "https://onramp.example/s/" + req.AttemptID}
			f.sessions[s.ID] = s
			_ = json.NewEncoder(w).Encode(s)
		case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/v1/onramp_sessions/"):
			s, ok := f.sessions[strings.TrimPrefix(r.URL.Path, "/v1/onramp_sessions/")]
			if !ok {
				http.NotFound(w, r)
				return
			}
			_ = json.NewEncoder(w).Encode(s)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return f, srv
}

func (f *fakeProcessor) set(id string, change func(*onramp.Session)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.sessions[id]
	change(&s)
	f.sessions[id] = s
}

func sign(secret string, ts int64, body string) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(strconv.FormatInt(ts, 10) + "." + body))
	return fmt.Sprintf("t=%d,v1=%s", ts, hex.EncodeToString(mac.Sum(nil)))
}

// processorEvent posts a signed processor event. A success without sourceAmountUsd in extra is
// sent with the receipt's USD total (a success pays only with the amount due);
// `,"sourceAmountUsd":null` sends one without.
func (e *env) processorEvent(id, receiptID, attemptID, sessionID, status string, extra string) *httptest.ResponseRecorder {
	if status == "fulfillment_complete" && !strings.Contains(extra, `"sourceAmountUsd"`) {
		extra += fullAmount(e.pool, receiptID)
	}
	body := fmt.Sprintf(`{"id":%q,"type":"crypto.onramp_session.updated","created":%d,"data":{"sessionId":%q,"receiptId":%q,"attemptId":%q,"status":%q%s}}`,
		id, e.clk.Now().Unix(), sessionID, receiptID, attemptID, status, extra)
	return e.do(req{method: http.MethodPost, path: "/api/processor/webhook", body: body,
		header: map[string]string{"Processor-Signature": sign(testProcessorSecret, e.clk.Now().Unix(), body)}})
}

// fullAmount is `,"sourceAmountUsd":<total>` for a USD receipt, "" for another or none.
func fullAmount(pool *pgxpool.Pool, receiptID string) string {
	var cents int64
	err := pool.QueryRow(context.Background(), `SELECT (data->>'totalCents')::bigint FROM events WHERE stream_id = $1 AND version = 1
		AND coalesce(data->>'currency', 'USD') IN ('USD', '')`, "receipt-"+receiptID).Scan(&cents)
	if err != nil {
		return ""
	}
	return fmt.Sprintf(`,"sourceAmountUsd":%d.%02d`, cents/100, cents%100)
}

func (e *env) status(m merchant, id string) map[string]any {
	e.t.Helper()
	rec := e.dev(m, http.MethodGet, "/api/receipts/status?receiptId="+id, "")
	if rec.Code != 200 {
		e.t.Fatalf("status: %d %s", rec.Code, rec.Body)
	}
	return decode(e.t, rec)
}

func (e *env) receiptFor(m merchant, total string) string {
	e.t.Helper()
	rec := e.dev(m, http.MethodPost, "/api/receipts", `{"lineItems":[{"label":"Order","priceUsd":`+total+`}],"totalUsd":`+total+`}`)
	if rec.Code != 201 {
		e.t.Fatalf("receipt: %d %s", rec.Code, rec.Body)
	}
	return decode(e.t, rec)["receipt"].(map[string]any)["receiptId"].(string)
}

func (e *env) history(m merchant, id string) []string {
	var types []string
	for _, ev := range decode(e.t, e.dev(m, http.MethodGet, "/api/receipts/"+id+"/events", ""))["events"].([]any) {
		types = append(types, ev.(map[string]any)["type"].(string))
	}
	return types
}

func TestProcessorWebhookSignatures(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(true)
	id := e.receiptFor(m, "10")
	body := `{"id":"evt_1","type":"x","created":1,"data":{"receiptId":"` + id + `","status":"fulfillment_processing","sessionId":"cos_x"}}`
	now := e.clk.Now().Unix()
	cases := []struct {
		name, header string
		want         int
	}{
		{"missing", "", 401},
		{"garbage", "nonsense", 401},
		{"wrong secret", sign("other", now, body), 401},
		{"altered body", sign(testProcessorSecret, now, body+" "), 401},
		{"stale", sign(testProcessorSecret, now-301, body), 400},
		{"from the future", sign(testProcessorSecret, now+301, body), 400},
	}
	for _, c := range cases {
		rec := e.do(req{method: http.MethodPost, path: "/api/processor/webhook", body: body, header: map[string]string{"Processor-Signature": c.header}})
		if rec.Code != c.want {
			t.Errorf("%s: %d %s, want %d", c.name, rec.Code, rec.Body, c.want)
		}
	}
	if st := e.status(m, id); st["status"] != "generated" {
		t.Fatalf("rejected events changed the receipt: %v", st)
	}
	for _, body := range []string{`{"id":"","data":{"status":"rejected"}}`, `{"id":"e","data":{}}`, `not json`} {
		rec := e.do(req{method: http.MethodPost, path: "/api/processor/webhook", body: body, header: map[string]string{"Processor-Signature": sign(testProcessorSecret, now, body)}})
		if rec.Code != 400 {
			t.Errorf("%s: %d", body, rec.Code)
		}
	}
}

func TestProcessorEventsDriveStatusThroughTheGuards(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(true)
	id := e.receiptFor(m, "25")
	// A session the service did not start opens an attempt.
	if rec := e.processorEvent("evt_1", id, "att_merchant", "cos_9", "fulfillment_processing", ""); rec.Code != 200 {
		t.Fatalf("processing: %d %s", rec.Code, rec.Body)
	}
	st := e.status(m, id)
	if st["status"] != "pending" || st["processorSessionId"] != "cos_9" || st["isProcessorSessionUnique"] != true {
		t.Fatalf("after processing: %v", st)
	}
	// Replays are no-ops.
	if rec := e.processorEvent("evt_1", id, "att_merchant", "cos_9", "fulfillment_processing", ""); rec.Code != 200 || decode(t, rec)["duplicate"] != true {
		t.Fatalf("replay: %d %s", rec.Code, rec.Body)
	}
	e.processorEvent("evt_2", id, "att_merchant", "cos_9", "ach_pending", "")
	if st := e.status(m, id); st["status"] != "ach_pending" || st["previousStatus"] != "pending" {
		t.Fatalf("ach: %v", st)
	}
	// A failure never replaces ach_pending.
	e.processorEvent("evt_3", id, "att_merchant", "cos_9", "rejected", `,"errorCode":"card_declined","requestId":"req_1"`)
	if st := e.status(m, id); st["status"] != "ach_pending" || st["failureCode"] != nil {
		t.Fatalf("late failure: %v", st)
	}
	e.processorEvent("evt_4", id, "att_merchant", "cos_9", "fulfillment_complete",
		`,"transactionHash":"0xABCDEF`+strings.Repeat("0", 58)+`","walletAddress":"0xAbCd`+strings.Repeat("1", 36)+`","sourceAmountUsd":25.37`)
	st = e.status(m, id)
	if st["status"] != "paid" || st["transactionHash"] != "0xabcdef"+strings.Repeat("0", 58) || st["buyerWallet"] != "0xabcd"+strings.Repeat("1", 36) ||
		st["processorSourceAmountUsd"] != 25.37 || st["customerTotalUsd"] != 25.0 || st["token"] != "USDC" || st["failureCode"] != nil || st["providerRequestId"] != nil {
		t.Fatalf("paid: %v", st)
	}
	// A stale failure after paid is recorded as ignored and changes nothing.
	e.processorEvent("evt_5", id, "att_merchant", "cos_9", "expired", "")
	if st := e.status(m, id); st["status"] != "paid" {
		t.Fatalf("stale failure after paid: %v", st)
	}
	h := e.history(m, id)
	want := []string{"ReceiptGenerated", "PaymentAttemptStarted", "PaymentSubmitted", "ACHPaymentAccepted", "PaymentFailureIgnored", "PaymentConfirmed", "PaymentFailureIgnored"}
	if strings.Join(h, ",") != strings.Join(want, ",") {
		t.Fatalf("history %v, want %v", h, want)
	}
	// Unknown receipts: stored, answered 200.
	if rec := e.processorEvent("evt_6", "rcpt_nobody", "att", "cos_1", "fulfillment_complete", ""); rec.Code != 200 || decode(t, rec)["stored"] != true {
		t.Fatalf("unknown receipt: %d %s", rec.Code, rec.Body)
	}
	if n := e.count("processor_events WHERE id = 'evt_6' AND processed_at IS NULL"); n != 1 {
		t.Fatal("event for an unknown receipt not kept for reconciliation")
	}
}

func TestFailureMappingAndRetry(t *testing.T) {
	t.Parallel()
	e := newAppEnv(t, withDeposits, nil, nil)
	m := e.merchant(true)
	id := e.receiptFor(m, "40")
	e.processorEvent("evt_a1", id, "att_1", "cos_1", "fulfillment_processing", "")
	// A failure of another attempt is ignored.
	e.processorEvent("evt_a2", id, "att_other", "cos_2", "rejected", `,"errorCode":"card_declined"`)
	if st := e.status(m, id); st["status"] != "pending" {
		t.Fatalf("foreign failure: %v", st)
	}
	e.processorEvent("evt_a3", id, "att_1", "cos_1", "rejected", `,"errorCode":"crypto_onramp_transaction_blocked","requestId":"req_77"`)
	st := e.status(m, id)
	if st["status"] != "failed" || st["failureCode"] != "PORTAL_PAY_TRANSACTION_BLOCKED" || st["failureCategory"] != "compliance" ||
		st["providerErrorCode"] != "crypto_onramp_transaction_blocked" || st["providerRequestId"] != "req_77" || st["failureAction"] == nil || st["failureReason"] == nil {
		t.Fatalf("failed: %v", st)
	}
	// Unknown cause: the generic code, the provider's code kept, nothing invented.
	id2 := e.receiptFor(m, "5")
	e.processorEvent("evt_b1", id2, "att_1", "cos_5", "fulfillment_processing", "")
	e.processorEvent("evt_b2", id2, "att_1", "cos_5", "rejected", `,"errorCode":"brand_new_code"`)
	if st := e.status(m, id2); st["failureCode"] != "PORTAL_PAY_FAILED" || st["providerErrorCode"] != "brand_new_code" || st["providerRequestId"] != nil {
		t.Fatalf("unknown cause: %v", st)
	}
	// The customer retries with a wallet: its submitted hash is a hint (DESIGN 9), which never
	// moves a receipt out of failed; only confirmed funds at the deposit address do.
	hash := "0x" + strings.Repeat("ab", 32)
	rec := e.do(req{method: http.MethodPost, path: "/api/portal/" + id + "/payment", body: `{"token":"USDC","transactionHash":"` + hash + `","buyerWallet":"0x` + strings.Repeat("9", 40) + `"}`})
	if rec.Code != 200 || decode(t, rec)["status"] != "failed" {
		t.Fatalf("wallet retry: %d %s", rec.Code, rec.Body)
	}
	st = e.status(m, id)
	if st["status"] != "failed" || st["failureCode"] != "PORTAL_PAY_TRANSACTION_BLOCKED" {
		t.Fatalf("after the hint: %v", st)
	}
}

func TestOnrampSessionsAndVerification(t *testing.T) {
	t.Parallel()
	fake, srv := newFakeProcessor(t)
	e := newAppEnv(t, func(c *app.Config) { c.Processor = onramp.New(srv.URL, "sk_test_1") }, nil, nil)
	m := e.merchant(true)
	id := e.receiptFor(m, "12.5")
	rec := e.do(req{method: http.MethodPost, path: "/api/portal/" + id + "/onramp", body: `{}`})
	if rec.Code != 200 {
		t.Fatalf("onramp: %d %s", rec.Code, rec.Body)
	}
	out := decode(t, rec)
	sid := out["processorSessionId"].(string)
	if len(fake.created) != 1 || fake.created[0].ReceiptID != id || fake.created[0].AttemptID != out["attemptId"] ||
		fake.created[0].AmountUSD.String() != "12.50" || fake.created[0].DestinationWallet != "0x"+strings.Repeat("c", 40) || fake.auth[0] != "Bearer sk_test_1" {
		t.Fatalf("session request %+v auth %v", fake.created, fake.auth)
	}
	// checkout_success is telemetry: paid only when the processor confirms.
	if rec := e.do(req{method: http.MethodPost, path: "/api/portal/" + id + "/telemetry", body: `{"event":"checkout_success"}`}); rec.Code != 200 {
		t.Fatalf("telemetry: %d", rec.Code)
	}
	if st := e.status(m, id); st["status"] != "generated" {
		t.Fatalf("checkout_success alone changed status: %v", st)
	}
	fake.set(sid, func(s *onramp.Session) {
		s.Status, s.TransactionHash, s.WalletAddress = "fulfillment_complete", "0x"+strings.Repeat("EF", 32), "0x"+strings.Repeat("5", 40)
		full := json.Number("12.50")
		s.SourceAmountUSD = &full
	})
	e.do(req{method: http.MethodPost, path: "/api/portal/" + id + "/telemetry", body: `{"event":"checkout_success","attemptId":"` + out["attemptId"].(string) + `"}`})
	if st := e.status(m, id); st["status"] != "paid" || st["transactionHash"] != "0x"+strings.Repeat("ef", 32) {
		t.Fatalf("verified: %v", st)
	}
	// Scheduled reconciliation finds a session the browser never reported.
	id2 := e.receiptFor(m, "3")
	sid2 := decode(t, e.do(req{method: http.MethodPost, path: "/api/portal/" + id2 + "/onramp", body: `{}`}))["processorSessionId"].(string)
	fake.set(sid2, func(s *onramp.Session) {
		s.Status, s.ErrorCode, s.RequestID = "rejected", "insufficient_funds", "req_9"
	})
	if rec := e.do(req{method: http.MethodPost, path: "/api/cron/reconcile", header: map[string]string{"x-cron-secret": "wrong"}}); rec.Code != 401 {
		t.Fatalf("cron without the secret: %d", rec.Code)
	}
	rec = e.do(req{method: http.MethodPost, path: "/api/cron/reconcile", header: map[string]string{"x-cron-secret": testCronSecret}})
	if body := decode(t, rec); rec.Code != 200 || body["updated"] != 1.0 {
		t.Fatalf("reconcile: %d %v", rec.Code, body)
	}
	if st := e.status(m, id2); st["status"] != "failed" || st["failureCode"] != "PORTAL_PAY_INSUFFICIENT_FUNDS" || st["providerRequestId"] != "req_9" {
		t.Fatalf("reconciled failure: %v", st)
	}
	// The background reconciler's pass only takes attempts older than its minimum age.
	done, err := e.svc.Commands.ReconcileOnramp.Handle(context.Background(), commands.ReconcileOnramp{MinAge: time.Hour})
	if checked := done.Checked; err != nil || checked != 0 {
		t.Fatalf("young attempts checked: %d %v", checked, err)
	}
	// No attempt once paid.
	if rec := e.do(req{method: http.MethodPost, path: "/api/portal/" + id + "/onramp", body: `{}`}); rec.Code != 400 {
		t.Fatalf("onramp on a paid receipt: %d", rec.Code)
	}
}

func TestTelemetryAndWalletValidation(t *testing.T) {
	t.Parallel()
	e := newAppEnv(t, withDeposits, nil, nil)
	m := e.merchant(true)
	id := e.receiptFor(m, "9")
	for _, ev := range []string{"link_opened", "checkout_initialized", "onramp_widget_loaded", "error", "checkout_closed"} {
		if rec := e.do(req{method: http.MethodPost, path: "/api/portal/" + id + "/telemetry", body: `{"event":"` + ev + `"}`}); rec.Code != 200 {
			t.Errorf("%s: %d", ev, rec.Code)
		}
	}
	if st := e.status(m, id); st["status"] != "generated" || st["failureCode"] != nil {
		t.Fatalf("telemetry changed the receipt: %v", st)
	}
	for _, body := range []string{`{"event":"hacked"}`, `{"event":"onramp_"}`, `{}`} {
		if rec := e.do(req{method: http.MethodPost, path: "/api/portal/" + id + "/telemetry", body: body}); rec.Code != 400 {
			t.Errorf("%s: %d", body, rec.Code)
		}
	}
	if rec := e.do(req{method: http.MethodPost, path: "/api/portal/nope/telemetry", body: `{"event":"error"}`}); rec.Code != 404 {
		t.Errorf("unknown receipt: %d", rec.Code)
	}
	good := `"token":"USDC","transactionHash":"0x` + strings.Repeat("a", 64) + `","buyerWallet":"0x` + strings.Repeat("b", 40) + `"`
	for name, body := range map[string]string{
		"bad token":  `{"token":"DOGE","transactionHash":"0x` + strings.Repeat("a", 64) + `","buyerWallet":"0x` + strings.Repeat("b", 40) + `"}`,
		"short hash": `{"token":"USDC","transactionHash":"0x1234","buyerWallet":"0x` + strings.Repeat("b", 40) + `"}`,
		"bad wallet": `{"token":"USDC","transactionHash":"0x` + strings.Repeat("a", 64) + `","buyerWallet":"0x12"}`,
		"missing":    `{}`,
	} {
		if rec := e.do(req{method: http.MethodPost, path: "/api/portal/" + id + "/payment", body: body}); rec.Code != 400 {
			t.Errorf("%s: %d", name, rec.Code)
		}
	}
	rec := e.do(req{method: http.MethodPost, path: "/api/portal/" + id + "/payment", body: "{" + good + "}"})
	if rec.Code != 200 || decode(t, rec)["waiting"] != true {
		t.Fatalf("wallet payment: %d %s", rec.Code, rec.Body)
	}
	// A hint (DESIGN 10) is kept outside the receipt's stream until its transaction, mined, pays
	// the deposit address: without a chain it waits, and the receipt is unchanged.
	if st := e.status(m, id); st["status"] != "generated" {
		t.Fatalf("wallet submission: %v", st)
	}
}

func TestRefunds(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(true)
	id := e.receiptFor(m, "100")
	refund := func(who merchant, body string) *httptest.ResponseRecorder {
		return e.adminCall(who.cookies, who.csrf, http.MethodPost, "/api/receipts/refund", body)
	}
	if rec := refund(m, `{"receiptId":"`+id+`","reason":"customer"}`); rec.Code != 400 {
		t.Fatalf("refund of an unpaid receipt: %d", rec.Code)
	}
	e.processorEvent("evt_r1", id, "att_1", "cos_1", "fulfillment_complete", `,"transactionHash":"0x`+strings.Repeat("1", 64)+`"`)
	other := e.merchant(true)
	if rec := refund(other, `{"receiptId":"`+id+`","reason":"x"}`); rec.Code != 404 {
		t.Fatalf("another merchant: %d", rec.Code)
	}
	for name, body := range map[string]string{
		"over-refund": `{"receiptId":"` + id + `","reason":"x","amountUsd":100.01}`,
		"no reason":   `{"receiptId":"` + id + `"}`,
		"bad amount":  `{"receiptId":"` + id + `","reason":"x","amountUsd":-5}`,
		"bad hash":    `{"receiptId":"` + id + `","reason":"x","transactionHash":"0x1"}`,
	} {
		if rec := refund(m, body); rec.Code != 400 || decode(t, rec)["error"] != "invalid_input" {
			t.Errorf("%s: %d %s", name, rec.Code, rec.Body)
		}
	}
	rec := refund(m, `{"receiptId":"`+id+`","reason":"damaged","amountUsd":30,"transactionHash":"0x`+strings.Repeat("2", 64)+`"}`)
	if body := decode(t, rec); rec.Code != 200 || body["status"] != "paid" || body["unrefundedUsd"] != 70.0 {
		t.Fatalf("partial: %d %v", rec.Code, body)
	}
	rec = refund(m, `{"receiptId":"`+id+`","reason":"rest"}`)
	if body := decode(t, rec); rec.Code != 200 || body["status"] != "refund_requested" || body["requestedRefundUsd"] != 70.0 {
		t.Fatalf("request: %d %v", rec.Code, body)
	}
	// A platform admin may process it.
	ac, acsrf := e.login(e.admin)
	rec = e.adminCall(ac, acsrf, http.MethodPost, "/api/receipts/refund", `{"receiptId":"`+id+`","reason":"rest","transactionHash":"0x`+strings.Repeat("3", 64)+`"}`)
	if body := decode(t, rec); rec.Code != 200 || body["status"] != "refunded" || body["refundedUsd"] != 100.0 {
		t.Fatalf("processed by admin: %d %v", rec.Code, body)
	}
	if st := e.status(m, id); st["status"] != "refunded" {
		t.Fatalf("status %v", st)
	}
	if rec := refund(m, `{"receiptId":"`+id+`","reason":"again"}`); rec.Code != 400 {
		t.Fatalf("refund of a refunded receipt: %d", rec.Code)
	}
}

func TestTerminal(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(true)
	rec := e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/receipts/terminal", `{"action":"display","amountUsd":7.25,"label":"Coffee"}`)
	if rec.Code != 200 {
		t.Fatalf("display: %d %s", rec.Code, rec.Body)
	}
	body := decode(t, rec)
	id := body["receipt"].(map[string]any)["receiptId"].(string)
	if body["paymentUrl"] != "https://pay.example/pay/"+id || body["receipt"].(map[string]any)["totalUsd"] != 7.25 {
		t.Fatalf("display: %v", body)
	}
	check := func() map[string]any {
		rec := e.do(req{method: http.MethodGet, path: "/api/terminal/check-payment?receiptId=" + id})
		if rec.Code != 200 || rec.Header().Get("Cache-Control") != "no-store" {
			t.Fatalf("check-payment: %d %v", rec.Code, rec.Header())
		}
		return decode(t, rec)
	}
	if c := check(); c["paid"] != false || c["status"] != "generated" {
		t.Fatalf("before: %v", c)
	}
	other := e.merchant(true)
	if rec := e.adminCall(other.cookies, other.csrf, http.MethodPost, "/api/receipts/terminal", `{"action":"complete","receiptId":"`+id+`","method":"cash"}`); rec.Code != 404 {
		t.Fatalf("another merchant completing: %d", rec.Code)
	}
	if rec := e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/receipts/terminal", `{"action":"complete","receiptId":"`+id+`","method":"card"}`); rec.Code != 400 {
		t.Fatalf("non-cash: %d", rec.Code)
	}
	if rec := e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/receipts/terminal", `{"action":"complete","receiptId":"`+id+`","method":"cash"}`); rec.Code != 200 {
		t.Fatalf("complete: %d %s", rec.Code, rec.Body)
	}
	if c := check(); c["paid"] != true || c["status"] != "paid" {
		t.Fatalf("after: %v", c)
	}
	events := decode(t, e.dev(m, http.MethodGet, "/api/receipts/"+id+"/events", ""))["events"].([]any)
	last := events[len(events)-1].(map[string]any)
	if last["type"] != "PaymentConfirmed" || last["data"].(map[string]any)["verifiedBy"] != "merchant" {
		t.Fatalf("confirmation event %v", last)
	}
	for _, body := range []string{`{"action":"display"}`, `{"action":"display","amountUsd":0}`, `{"action":"dance"}`} {
		if rec := e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/receipts/terminal", body); rec.Code != 400 {
			t.Errorf("%s: %d", body, rec.Code)
		}
	}
	if rec := e.do(req{method: http.MethodGet, path: "/api/terminal/check-payment?receiptId=nope"}); rec.Code != 404 {
		t.Fatalf("unknown receipt: %d", rec.Code)
	}
}

func TestPaymentPageAndStaticAssets(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(true)
	id := e.receiptFor(m, "12")
	for _, p := range []string{"/portal/" + id, "/pay/" + id} {
		rec := e.do(req{method: http.MethodGet, path: p})
		if rec.Code != 200 || rec.Header().Get("Cache-Control") != "no-store" || !strings.Contains(rec.Body.String(), `data-receipt="`+id+`"`) {
			t.Fatalf("%s: %d %v", p, rec.Code, rec.Header())
		}
	}
	page := e.do(req{method: http.MethodGet, path: "/pay/" + id}).Body.String()
	start := strings.Index(page, "/_next/static/")
	js := page[start : start+strings.Index(page[start:], `"`)]
	if !strings.HasSuffix(js, ".css") && !strings.HasSuffix(js, ".js") {
		t.Fatalf("asset path %q", js)
	}
	rec := e.do(req{method: http.MethodGet, path: js})
	h := rec.Header()
	if rec.Code != 200 || h.Get("Cache-Control") != "public, max-age=31536000, immutable" || h.Get("Access-Control-Allow-Origin") != "*" ||
		h.Get("Access-Control-Allow-Methods") != "GET, POST, OPTIONS, PUT, DELETE" || h.Get("Access-Control-Allow-Headers") != "*" {
		t.Fatalf("asset %s: %d %v", js, rec.Code, h)
	}
	if rec := e.do(req{method: http.MethodGet, path: "/_next/static/0000000000000000/app.js"}); rec.Code != 404 {
		t.Fatalf("stale hash: %d", rec.Code)
	}
	if rec := e.do(req{method: http.MethodGet, path: "/pay/nope"}); rec.Code != 404 {
		t.Fatalf("unknown receipt page: %d", rec.Code)
	}
	if r := decode(t, e.do(req{method: http.MethodGet, path: "/api/portal/" + id}))["receipt"].(map[string]any); r["totalUsd"] != 12.0 {
		t.Fatalf("portal receipt %v", r)
	}
}
