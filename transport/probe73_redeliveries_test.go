package transport

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// TestRedeliveriesAreBoundedPerMerchantAnHour (stop 73 probe): a manual redelivery (of a receipt
// webhook or an endpoint's message) is an outbound POST and an attempt row kept 30 days after the
// notification closes, bounded only by the per-wallet admin rate (600 a minute, about 26 million
// rows a month per wallet; any wallet signs in) while webhook.test events have had their own bound
// since stop 70 ("Stop 68: left after the probe2 review"). Past RedeliveriesPerHour in an hour, both
// routes together, a redelivery is 429 rate_limited with resetAt: no attempt, nothing recorded; an
// unknown id is 404 and costs nothing; the next hour redelivers again.
func TestRedeliveriesAreBoundedPerMerchantAnHour(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(d *testDeps) { d.Config.Production = false })
	m := e.merchant(true)
	r := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }))
	t.Cleanup(r.Close)
	ctx := context.Background()
	id := e.hookedReceipt(m, r.URL)
	e.pay(id, "evt_1")
	var did string
	waitUntil(t, "the first delivery", 10*time.Second, func() bool {
		return e.pool.QueryRow(ctx, `SELECT id::text FROM webhook_deliveries WHERE receipt_id = $1 LIMIT 1`, id).Scan(&did) == nil
	})
	endpoint, _ := e.createEndpoint(m, r.URL, "webhook.test")
	if rec := e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/webhooks/endpoints/"+endpoint+"/test", ""); rec.Code != http.StatusAccepted {
		t.Fatalf("test: %d %s", rec.Code, rec.Body)
	}
	var eventID string
	waitUntil(t, "the endpoint's first delivery", 10*time.Second, func() bool {
		return e.pool.QueryRow(ctx, `SELECT event_id::text FROM webhook_endpoint_messages WHERE endpoint_id = $1 AND state = 'delivered'`,
			endpoint).Scan(&eventID) == nil
	})
	receiptPath := "/api/webhooks/deliveries/" + did + "/redeliver"
	endpointPath := "/api/webhooks/endpoints/" + endpoint + "/deliveries/" + eventID + "/redeliver"
	redeliver := func(path string) *httptest.ResponseRecorder {
		return e.adminCall(m.cookies, m.csrf, http.MethodPost, path, "")
	}
	attempts := func() int {
		var n int
		if err := e.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM webhook_deliveries WHERE receipt_id = $1 AND kind = 'redeliver')
			+ (SELECT count(*) FROM webhook_endpoint_attempts WHERE endpoint_id = $2 AND kind = 'redeliver')`, id, endpoint).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for i := range RedeliveriesPerHour {
		path := receiptPath
		if i%2 == 1 {
			path = endpointPath
		}
		if rec := redeliver(path); rec.Code != http.StatusOK {
			t.Fatalf("redelivery %d: %d %s", i+1, rec.Code, rec.Body)
		}
	}
	if rec := redeliver("/api/webhooks/deliveries/00000000-0000-4000-8000-000000000000/redeliver"); rec.Code != http.StatusNotFound {
		t.Fatalf("an unknown delivery: %d %s", rec.Code, rec.Body)
	}
	for _, path := range []string{receiptPath, endpointPath} {
		rec := redeliver(path)
		if rec.Code != http.StatusTooManyRequests || decode(t, rec)["error"] != "rate_limited" {
			t.Fatalf("past %d an hour (%s): %d %s, want 429 rate_limited", RedeliveriesPerHour, path, rec.Code, rec.Body)
		}
	}
	if n := attempts(); n != RedeliveriesPerHour {
		t.Fatalf("%d redelivery attempts recorded, want %d: a refused one was sent", n, RedeliveriesPerHour)
	}
	e.clk.Advance(time.Hour)
	if rec := redeliver(receiptPath); rec.Code != http.StatusOK {
		t.Fatalf("the next hour: %d %s", rec.Code, rec.Body)
	}
}
