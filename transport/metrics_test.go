package transport

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestMetricsScrapeSeesEveryFamily(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(d *testDeps) {
		d.Config.MetricsToken = "scrape-me"
		d.Config.KeyLimitPerMinute = 5
	})
	m := e.merchant(true)
	r := newReceiver(t)
	id := e.hookedReceipt(m, r.srv.URL)
	e.pay(id, "evt_1")
	waitUntil(t, "delivery", 10*time.Second, func() bool { return r.count() == 1 })
	for range 6 {
		e.dev(m, http.MethodGet, "/api/status/ping", "")
	}
	e.do(req{method: http.MethodGet, path: "/healthz"})
	if rec := e.do(req{method: http.MethodGet, path: "/metrics"}); rec.Code != 401 {
		t.Fatalf("without the token: %d", rec.Code)
	}
	scrape := func() string {
		rec := e.do(req{method: http.MethodGet, path: "/metrics", header: map[string]string{"Authorization": "Bearer scrape-me"}})
		if rec.Code != 200 {
			t.Fatalf("scrape: %d", rec.Code)
		}
		return rec.Body.String()
	}
	// The receiver counts the request when it arrives; the dispatcher counts the delivery and
	// then marks the outbox row once the answer is back, so both figures can lag a moment.
	var body string
	waitUntil(t, "delivery counted and marked", 10*time.Second, func() bool {
		body = scrape()
		return strings.Contains(body, `payledger_webhook_deliveries_total{outcome="delivered"} 1`) &&
			strings.Contains(body, `payledger_webhook_outbox_depth{state="delivered"} 1`)
	})
	for _, family := range []string{
		`payledger_http_requests_total{method="GET",route="/api/status/ping",status="200"}`,
		`payledger_http_request_duration_seconds_bucket{method="POST",route="/api/receipts"`,
		`payledger_projection_lag_events{projector="receipts"}`,
		`payledger_projection_lag_seconds{projector="receipts"}`,
		`payledger_webhook_outbox_depth{state="delivered"} 1`,
		`payledger_webhook_deliveries_total{outcome="delivered"} 1`,
		`payledger_rate_limit_rejections_total{kind="key"}`,
		`payledger_degraded 0`,
	} {
		if !strings.Contains(body, family) {
			t.Errorf("scrape lacks %s", family)
		}
	}
}
