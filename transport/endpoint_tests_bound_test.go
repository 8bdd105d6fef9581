package transport

import (
	"context"
	"net/http"
	"strconv"
	"testing"
	"time"
)

// testEvents is how many webhook.test events wallet's merchant has recorded.
func (e *env) testEvents(wallet string) int {
	e.t.Helper()
	var n int
	if err := e.pool.QueryRow(context.Background(), `SELECT count(*) FROM webhook_events
		WHERE lower(merchant_wallet) = lower($1) AND type = 'webhook.test'`, wallet).Scan(&n); err != nil {
		e.t.Fatal(err)
	}
	return n
}

// TestEndpointTestsAreBoundedPerMerchant: POST /api/webhooks/endpoints/{id}/test was bounded only
// by the per-wallet limit (600 a minute), each call an event kept 30 days and an outbound POST. A
// merchant now has TestEventsPerHour of them an hour, all its endpoints together; past that, 429
// rate_limited with resetAt and Retry-After, and no event recorded. Another merchant is not held
// up, and a minute later (an hour / TestEventsPerHour) one more is allowed.
func TestEndpointTestsAreBoundedPerMerchant(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(d *testDeps) { d.Config.Production = false })
	m, other := e.merchant(false), e.merchant(false)
	first, _ := e.createEndpoint(m, "http://127.0.0.1:1/a", "webhook.test")
	second, _ := e.createEndpoint(m, "http://127.0.0.1:1/b", "webhook.test")
	test := func(m merchant, id string) *httpResponse {
		rec := e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/webhooks/endpoints/"+id+"/test", "")
		return &httpResponse{code: rec.Code, header: rec.Header(), body: decode(t, rec)}
	}
	for i := range TestEventsPerHour {
		id := first
		if i%2 == 1 {
			id = second
		}
		if r := test(m, id); r.code != http.StatusAccepted {
			t.Fatalf("test %d: %d %v", i+1, r.code, r.body)
		}
	}
	for _, id := range []string{first, second} {
		r := test(m, id)
		retry, _ := strconv.Atoi(r.header.Get("Retry-After"))
		if r.code != http.StatusTooManyRequests || r.body["error"] != "rate_limited" || r.body["resetAt"] == nil || retry < 1 || retry > 60 {
			t.Fatalf("past %d an hour: %d %v (Retry-After %q), want 429 rate_limited within a minute", TestEventsPerHour, r.code, r.body, r.header.Get("Retry-After"))
		}
	}
	if n := e.testEvents(m.wallet); n != TestEventsPerHour {
		t.Fatalf("%d test events recorded, want %d: a refused test recorded one", n, TestEventsPerHour)
	}
	otherID, _ := e.createEndpoint(other, "http://127.0.0.1:1/c", "webhook.test")
	if r := test(other, otherID); r.code != http.StatusAccepted {
		t.Fatalf("another merchant: %d %v", r.code, r.body)
	}
	// An id of another merchant's is 404 and takes nothing of its bound.
	if r := test(m, otherID); r.code != http.StatusNotFound {
		t.Fatalf("another merchant's endpoint: %d %v", r.code, r.body)
	}
	e.clk.Advance(time.Hour / TestEventsPerHour)
	if r := test(m, first); r.code != http.StatusAccepted {
		t.Fatalf("a minute later: %d %v", r.code, r.body)
	}
}

// httpResponse is what the test keeps of an answer.
type httpResponse struct {
	code   int
	header http.Header
	body   map[string]any
}
