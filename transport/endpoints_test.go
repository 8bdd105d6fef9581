package transport

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

// verifyStandardWebhook checks a delivery as the Standard Webhooks specification says a receiver
// must, written here from the specification (not from the sender's code): the secret is
// "whsec_" + base64 key; the signed content is "<webhook-id>.<webhook-timestamp>.<body>"; the
// header holds space-separated "v1,<base64 HMAC-SHA256>" signatures, one of which must match;
// the timestamp must be within 5 minutes of now.
func verifyStandardWebhook(secret string, h http.Header, body []byte, now time.Time) bool {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil || len(key) == 0 {
		return false
	}
	id, ts := h.Get("webhook-id"), h.Get("webhook-timestamp")
	sec, err := strconv.ParseInt(ts, 10, 64)
	if id == "" || err != nil || now.Sub(time.Unix(sec, 0)).Abs() > 5*time.Minute {
		return false
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + ts + "." + string(body)))
	want := mac.Sum(nil)
	for _, sig := range strings.Fields(h.Get("webhook-signature")) {
		version, b64, ok := strings.Cut(sig, ",")
		got, err := base64.StdEncoding.DecodeString(b64)
		if ok && version == "v1" && err == nil && hmac.Equal(got, want) {
			return true
		}
	}
	return false
}

// createEndpoint registers an endpoint for m and returns its id and secret.
func (e *env) createEndpoint(m merchant, url string, events ...string) (string, string) {
	e.t.Helper()
	b, _ := json.Marshal(map[string]any{"url": url, "events": events})
	rec := e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/webhooks/endpoints", string(b))
	if rec.Code != http.StatusCreated {
		e.t.Fatalf("create endpoint: %d %s", rec.Code, rec.Body)
	}
	ep := decode(e.t, rec)["endpoint"].(map[string]any)
	secret := ep["secret"].(string)
	if !strings.HasPrefix(secret, "whsec_") {
		e.t.Fatalf("secret %q", secret)
	}
	return ep["id"].(string), secret
}

type standardBody struct {
	Type      string         `json:"type"`
	Timestamp string         `json:"timestamp"`
	Data      map[string]any `json:"data"`
}

func bodyOf(t *testing.T, r received) standardBody {
	t.Helper()
	var b standardBody
	if err := json.Unmarshal(r.body, &b); err != nil {
		t.Fatalf("body %s: %v", r.body, err)
	}
	if _, err := time.Parse(time.RFC3339Nano, b.Timestamp); err != nil {
		t.Fatalf("timestamp %q is not ISO 8601: %v", b.Timestamp, err)
	}
	return b
}

func TestWebhookEndpointTestAndReceiptEventsVerify(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(d *testDeps) { d.Config.Production = false })
	m := e.merchant(true)
	r := newReceiver(t)
	id, secret := e.createEndpoint(m, r.srv.URL+"/hook", "*")
	// The list shows it without its secret, to a key with receipts:read as to the session.
	list := e.dev(m, http.MethodGet, "/api/webhooks/endpoints", "")
	if list.Code != 200 || strings.Contains(list.Body.String(), "whsec_") || !strings.Contains(list.Body.String(), id) {
		t.Fatalf("list: %d %s", list.Code, list.Body)
	}
	if rec := e.do(req{method: http.MethodGet, path: "/api/webhooks/endpoints", cookies: m.cookies}); rec.Code != 200 {
		t.Fatalf("list by session: %d %s", rec.Code, rec.Body)
	}
	if rec := e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/webhooks/endpoints/"+id+"/test", ""); rec.Code != http.StatusAccepted {
		t.Fatalf("test: %d %s", rec.Code, rec.Body)
	}
	waitUntil(t, "the test event", 10*time.Second, func() bool { return r.count() == 1 })
	got := r.all()[0]
	if !verifyStandardWebhook(secret, got.header, got.body, time.Now()) {
		t.Fatalf("webhook.test does not verify: %v %s", got.header, got.body)
	}
	if b := bodyOf(t, got); b.Type != "webhook.test" {
		t.Fatalf("type %q", b.Type)
	}
	if verifyStandardWebhook("whsec_"+base64.StdEncoding.EncodeToString([]byte("another secret of 32 bytes......")), got.header, got.body, time.Now()) {
		t.Fatal("verifies with another secret")
	}
	tampered := append([]byte(nil), got.body...)
	tampered[len(tampered)-2] ^= 1
	if verifyStandardWebhook(secret, got.header, tampered, time.Now()) {
		t.Fatal("verifies a changed body")
	}

	receiptID := e.hookedReceipt(m, r.srv.URL+"/per-receipt")
	e.pay(receiptID, "evt_p")
	var paid received
	waitUntil(t, "receipt.status_updated paid", 10*time.Second, func() bool {
		for _, x := range r.all() {
			if x.header.Get("webhook-id") == "" {
				continue // the spec's per-receipt webhook, unchanged
			}
			var b standardBody
			if json.Unmarshal(x.body, &b) == nil && b.Type == "receipt.status_updated" && b.Data["status"] == "paid" {
				paid = x
				return true
			}
		}
		return false
	})
	if !verifyStandardWebhook(secret, paid.header, paid.body, time.Now()) {
		t.Fatalf("receipt.status_updated does not verify: %v", paid.header)
	}
	if b := bodyOf(t, paid); b.Data["receiptId"] != receiptID || b.Data["event"] != "receipt.status_updated" || b.Data["idempotencyKey"] == nil {
		t.Fatalf("data %v", b.Data)
	}
	// The per-receipt webhook still arrives as the spec says (X-Service-Signature).
	waitUntil(t, "the per-receipt webhook", 10*time.Second, func() bool {
		for _, x := range r.all() {
			if x.header.Get("X-Service-Signature") != "" && x.header.Get("webhook-id") == "" {
				return true
			}
		}
		return false
	})
	// The endpoint's delivery log has the receiver's answers.
	log := e.dev(m, http.MethodGet, "/api/webhooks/endpoints/"+id+"/deliveries", "")
	if log.Code != 200 || !strings.Contains(log.Body.String(), `"httpStatus":200`) {
		t.Fatalf("deliveries: %d %s", log.Code, log.Body)
	}
}

func TestWebhookEndpointFilter(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(d *testDeps) { d.Config.Production = false })
	m := e.merchant(true)
	all, only, perReceipt := newReceiver(t), newReceiver(t), newReceiver(t)
	e.createEndpoint(m, all.srv.URL, "*")
	onlyID, _ := e.createEndpoint(m, only.srv.URL, "subscription.charged", "split.distributed")
	id := e.hookedReceipt(m, perReceipt.srv.URL)
	e.pay(id, "evt_f")
	waitUntil(t, "the paid event at the catch-all endpoint", 10*time.Second, func() bool {
		for _, x := range all.all() {
			if strings.Contains(string(x.body), `"status":"paid"`) {
				return true
			}
		}
		return false
	})
	// The fan-out of an event commits at once for every endpoint: the filtered one has none.
	var n int
	if err := e.pool.QueryRow(context.Background(), `SELECT count(*) FROM webhook_endpoint_messages WHERE endpoint_id = $1`, onlyID).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 || only.count() != 0 {
		t.Fatalf("filtered endpoint got %d messages, %d requests", n, only.count())
	}
	bad := e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/webhooks/endpoints", `{"url":"http://localhost:1/x","events":["receipt.nope"]}`)
	if bad.Code != 400 || decode(t, bad)["error"] != "invalid_input" {
		t.Fatalf("unknown type: %d %s", bad.Code, bad.Body)
	}
	// receipt.payment_detected is in the catalog before anything records it.
	e.createEndpoint(m, only.srv.URL, "receipt.payment_detected")
}

func TestWebhookEndpointRetriesWithTheSameID(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(d *testDeps) { d.Config.Production = false })
	m := e.merchant(true)
	r := newReceiver(t, 500, 503)
	id, secret := e.createEndpoint(m, r.srv.URL, "webhook.test")
	if rec := e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/webhooks/endpoints/"+id+"/test", ""); rec.Code != http.StatusAccepted {
		t.Fatalf("test: %d %s", rec.Code, rec.Body)
	}
	waitUntil(t, "the automatic retry", 10*time.Second, func() bool { return r.count() >= 2 })
	got := r.all()
	if got[0].header.Get("webhook-id") == "" || got[1].header.Get("webhook-id") != got[0].header.Get("webhook-id") ||
		string(got[1].body) != string(got[0].body) {
		t.Fatalf("retry changed the webhook-id or body: %q %q", got[0].header.Get("webhook-id"), got[1].header.Get("webhook-id"))
	}
	for _, x := range got[:2] {
		if !verifyStandardWebhook(secret, x.header, x.body, time.Now()) {
			t.Fatal("a retry does not verify")
		}
	}
	// The log has both failures with the receiver's codes; a manual redelivery succeeds with the
	// same id and closes the message.
	var log struct {
		Deliveries []struct {
			EventID    string `json:"eventId"`
			HTTPStatus *int   `json:"httpStatus"`
		} `json:"deliveries"`
	}
	var rec *httptest.ResponseRecorder
	waitUntil(t, "both attempts in the log", 10*time.Second, func() bool {
		rec = e.dev(m, http.MethodGet, "/api/webhooks/endpoints/"+id+"/deliveries", "")
		return json.Unmarshal(rec.Body.Bytes(), &log) == nil && len(log.Deliveries) >= 2
	})
	last := log.Deliveries[len(log.Deliveries)-1]
	if last.HTTPStatus == nil || *last.HTTPStatus != 500 || *log.Deliveries[len(log.Deliveries)-2].HTTPStatus != 503 {
		t.Fatalf("log statuses: %s", rec.Body)
	}
	again := e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/webhooks/endpoints/"+id+"/deliveries/"+last.EventID+"/redeliver", "")
	if again.Code != 200 || decode(t, again)["ok"] != true {
		t.Fatalf("redeliver: %d %s", again.Code, again.Body)
	}
	all := r.all()
	if all[len(all)-1].header.Get("webhook-id") != got[0].header.Get("webhook-id") {
		t.Fatal("redelivery changed the webhook-id")
	}
	var state string
	if err := e.pool.QueryRow(context.Background(), `SELECT state FROM webhook_endpoint_messages WHERE endpoint_id = $1`, id).Scan(&state); err != nil || state != "delivered" {
		t.Fatalf("message state %q %v", state, err)
	}
	// Another merchant sees none of it.
	other := e.merchant(false)
	if rec := e.dev(other, http.MethodGet, "/api/webhooks/endpoints/"+id+"/deliveries", ""); rec.Code != 404 {
		t.Fatalf("another merchant's log: %d", rec.Code)
	}
	if rec := e.adminCall(other.cookies, other.csrf, http.MethodDelete, "/api/webhooks/endpoints/"+id, ""); rec.Code != 404 {
		t.Fatalf("another merchant's delete: %d", rec.Code)
	}
	if rec := e.adminCall(m.cookies, m.csrf, http.MethodDelete, "/api/webhooks/endpoints/"+id, ""); rec.Code != 200 {
		t.Fatalf("delete: %d %s", rec.Code, rec.Body)
	}
}

func TestWebhookEndpointPrivateAddressRefusedInProduction(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(d *testDeps) { d.Config.Production = true })
	m := e.merchant(false)
	for _, url := range []string{"https://127.0.0.1/hook", "https://10.1.2.3/hook", "https://localhost/hook", "https://[::1]/hook",
		"https://169.254.169.254/latest", "http://example.com/hook"} {
		rec := e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/webhooks/endpoints", `{"url":"`+url+`","events":["*"]}`)
		if rec.Code != 400 || decode(t, rec)["error"] != "invalid_input" {
			t.Fatalf("%s: %d %s", url, rec.Code, rec.Body)
		}
	}
	if n := e.count("webhook_endpoints"); n != 0 {
		t.Fatalf("%d endpoints stored", n)
	}
	if rec := e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/webhooks/endpoints", `{"url":"https://hooks.example.com/x","events":["*"]}`); rec.Code != 201 {
		t.Fatalf("public https: %d %s", rec.Code, rec.Body)
	}
}
