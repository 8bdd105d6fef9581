package transport

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payledger/payledger/readmodels"
	"github.com/payledger/payledger/webhooks"
)

// rotateSecret rotates m's endpoint id's secret and returns the new secret and the old one's expiry.
func (e *env) rotateSecret(m merchant, id string) (string, int64) {
	e.t.Helper()
	rec := e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/webhooks/endpoints/"+id+"/secret/rotate", "")
	if rec.Code != http.StatusOK {
		e.t.Fatalf("rotate: %d %s", rec.Code, rec.Body)
	}
	ep := decode(e.t, rec)["endpoint"].(map[string]any)
	secret, _ := ep["secret"].(string)
	expires, _ := ep["previousSecretExpiresAt"].(float64)
	if !strings.HasPrefix(secret, "whsec_") || ep["id"] != id {
		e.t.Fatalf("rotate answered %s", rec.Body)
	}
	return secret, int64(expires)
}

// onlySignature is h with webhook-signature narrowed to its i-th signature.
func onlySignature(t *testing.T, h http.Header, i int) http.Header {
	t.Helper()
	sigs := strings.Fields(h.Get("webhook-signature"))
	if i >= len(sigs) {
		t.Fatalf("webhook-signature %q has no signature %d", h.Get("webhook-signature"), i)
	}
	out := h.Clone()
	out.Set("webhook-signature", sigs[i])
	return out
}

// TestWebhookEndpointSecretRotation: after POST .../secret/rotate every delivery carries
// "v1,<new> v1,<old>" (each verifying with its own secret only, as a Standard Webhooks receiver
// checks) for 24 hours, then only the new one; a second rotation within the 24 h keeps only the
// secret it replaced. Another merchant's or a deleted endpoint is 404, a body with a field is 400,
// both in the envelope; an Idempotency-Key replay answers the same secret without rotating again.
func TestWebhookEndpointSecretRotation(t *testing.T) {
	t.Parallel()
	// The dispatcher signs on the test's clock, which the overlap's end advances (it may run before
	// the env is returned: the wall clock until then).
	var clk atomic.Pointer[clock]
	e := newEnvWith(t, func(d *testDeps) { d.Config.Production = false }, func(d *webhooks.Dispatcher) {
		d.Now = func() time.Time {
			if c := clk.Load(); c != nil {
				return c.Now()
			}
			return time.Now()
		}
	})
	clk.Store(e.clk)
	m := e.merchant(false)
	r := newReceiver(t)
	id, first := e.createEndpoint(m, r.srv.URL, "webhook.test")
	test := func() received {
		t.Helper()
		n := r.count()
		if rec := e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/webhooks/endpoints/"+id+"/test", ""); rec.Code != http.StatusAccepted {
			t.Fatalf("test: %d %s", rec.Code, rec.Body)
		}
		waitUntil(t, "the test event", 10*time.Second, func() bool { return r.count() > n })
		return r.all()[n]
	}

	second, expires := e.rotateSecret(m, id)
	if second == first || expires != e.clk.Now().Add(24*time.Hour).UnixMilli() {
		t.Fatalf("rotation: same secret %v, old one expires at %d, want now + 24 h", second == first, expires)
	}
	got := test()
	now := e.clk.Now()
	if n := len(strings.Fields(got.header.Get("webhook-signature"))); n != 2 {
		t.Fatalf("during the overlap %d signatures: %q", n, got.header.Get("webhook-signature"))
	}
	if !verifyStandardWebhook(second, got.header, got.body, now) || !verifyStandardWebhook(first, got.header, got.body, now) {
		t.Fatal("during the overlap the delivery does not verify with both secrets")
	}
	newSig, oldSig := onlySignature(t, got.header, 0), onlySignature(t, got.header, 1)
	if !verifyStandardWebhook(second, newSig, got.body, now) || verifyStandardWebhook(first, newSig, got.body, now) ||
		!verifyStandardWebhook(first, oldSig, got.body, now) || verifyStandardWebhook(second, oldSig, got.body, now) {
		t.Fatal(`the signatures are not "v1,<new> v1,<old>"`)
	}

	// Rotating again within the 24 h: the secret just replaced is the previous one, the first is gone.
	third, _ := e.rotateSecret(m, id)
	got = test()
	now = e.clk.Now()
	if !verifyStandardWebhook(third, got.header, got.body, now) || !verifyStandardWebhook(second, got.header, got.body, now) ||
		verifyStandardWebhook(first, got.header, got.body, now) || len(strings.Fields(got.header.Get("webhook-signature"))) != 2 {
		t.Fatalf("after a second rotation: %q", got.header.Get("webhook-signature"))
	}

	// An Idempotency-Key replay answers the first answer (kept sealed) and rotates nothing.
	idem := func() *httptest.ResponseRecorder {
		return e.do(req{method: http.MethodPost, path: "/api/webhooks/endpoints/" + id + "/secret/rotate", cookies: m.cookies,
			header: map[string]string{CSRFHeader: m.csrf, "Idempotency-Key": "rotate-1"}})
	}
	a, b := idem(), idem()
	if a.Code != 200 || b.Code != 200 || a.Body.String() != b.Body.String() || b.Header().Get("Idempotent-Replayed") != "true" {
		t.Fatalf("replay: %d %s / %d %s %v", a.Code, a.Body, b.Code, b.Body, b.Header())
	}
	fourth := decode(t, a)["endpoint"].(map[string]any)["secret"].(string)
	var kept int
	if err := e.pool.QueryRow(context.Background(), `SELECT count(*) FROM idempotent_responses WHERE position($1::bytea IN body_sealed) > 0`,
		[]byte(fourth[6:])).Scan(&kept); err != nil || kept != 0 {
		t.Fatalf("the kept answer holds the secret in the clear: %d %v", kept, err)
	}
	got = test()
	if !verifyStandardWebhook(fourth, got.header, got.body, e.clk.Now()) || !verifyStandardWebhook(third, got.header, got.body, e.clk.Now()) {
		t.Fatal("the replay rotated again, or the first answer's secret does not sign")
	}

	// Refusals, in the envelope.
	other := e.merchant(false)
	for _, c := range []struct {
		m          merchant
		path, body string
		code       int
		error      string
	}{
		{other, id, "", 404, "not_found"},
		{m, "not-a-uuid", "", 404, "not_found"},
		{m, uuid.NewString(), "", 404, "not_found"},
		{m, id, `{"secret":"whsec_mine"}`, 400, "invalid_input"},
		{m, id, `[`, 400, "invalid_input"},
	} {
		rec := e.adminCall(c.m.cookies, c.m.csrf, http.MethodPost, "/api/webhooks/endpoints/"+c.path+"/secret/rotate", c.body)
		if rec.Code != c.code || decode(t, rec)["error"] != c.error || decode(t, rec)["message"] == nil {
			t.Fatalf("%s %s: %d %s", c.path, c.body, rec.Code, rec.Body)
		}
	}
	gone, _ := e.createEndpoint(m, r.srv.URL, "webhook.test")
	if rec := e.adminCall(m.cookies, m.csrf, http.MethodDelete, "/api/webhooks/endpoints/"+gone, ""); rec.Code != 200 {
		t.Fatalf("delete: %d %s", rec.Code, rec.Body)
	}
	if rec := e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/webhooks/endpoints/"+gone+"/secret/rotate", ""); rec.Code != 404 ||
		decode(t, rec)["error"] != "not_found" {
		t.Fatalf("a deleted endpoint: %d %s", rec.Code, rec.Body)
	}

	// After the overlap only the new secret signs (the retries and redeliveries sign as this).
	e.clk.Advance(24*time.Hour + time.Second)
	n := r.count()
	epID := uuid.MustParse(id)
	if err := e.endpoints.Record(context.Background(), readmodels.NewEvent{Key: "after-overlap", Merchant: m.wallet, Type: webhooks.TypeTest,
		At: e.clk.Now(), Endpoint: &epID, Data: readmodels.WebhookTest{EndpointID: id, Message: "after"}}); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the event after the overlap", 10*time.Second, func() bool { return r.count() > n })
	got, now = r.all()[n], e.clk.Now()
	if sigs := strings.Fields(got.header.Get("webhook-signature")); len(sigs) != 1 || !verifyStandardWebhook(fourth, got.header, got.body, now) ||
		verifyStandardWebhook(third, got.header, got.body, now) {
		t.Fatalf("after the overlap: %q", got.header.Get("webhook-signature"))
	}

	// Neither secret is stored in the clear.
	var row string
	if err := e.pool.QueryRow(context.Background(), `SELECT encode(secret_ciphertext, 'escape') || encode(previous_secret_ciphertext, 'escape')
		FROM webhook_endpoints WHERE id = $1`, id).Scan(&row); err != nil || strings.Contains(row, fourth[6:]) || strings.Contains(row, third[6:]) {
		t.Fatalf("stored secrets: %v", err)
	}
}
