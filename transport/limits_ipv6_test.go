package transport

import (
	"fmt"
	"net/http"
	"testing"
)

// The per-address limits count an IPv6 client by its /64: a host has every address of its /64
// and may use a new one per request, so the public routes' limit, the wrong-cron-secret gate and
// the payment page's streams per address, each counted per IPv6 address, limited nothing.
func TestPerAddressLimitsCountAnIPv6ClientByItsSlash64(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(d *testDeps) { d.Config.PublicLimitPerMinute = 3 })
	public := func(remote string) int {
		return e.do(req{method: http.MethodGet, path: "/api/portal/rcpt_unknown", remote: remote}).Code
	}
	for i := 1; i <= 3; i++ {
		if code := public(fmt.Sprintf("[2001:db8:1:2::%x]:4000", i)); code != http.StatusNotFound {
			t.Fatalf("request %d of the /64: %d", i, code)
		}
	}
	if code := public("[2001:db8:1:2:abcd::99]:4000"); code != http.StatusTooManyRequests {
		t.Fatalf("a fourth address of the same /64: %d, want 429", code)
	}
	// Another /64, and IPv4 addresses (each its own), are other clients.
	for _, remote := range []string{"[2001:db8:1:3::1]:4000", "192.0.2.1:4000", "192.0.2.2:4000", "[::ffff:192.0.2.3]:4000"} {
		if code := public(remote); code != http.StatusNotFound {
			t.Fatalf("%s: %d", remote, code)
		}
	}
	// Wrong cron secrets: at most authFailuresPerMinute per client, whatever address of its /64.
	var last int
	for i := 1; i <= authFailuresPerMinute+1; i++ {
		last = e.do(req{method: http.MethodPost, path: "/api/cron/reconcile", remote: fmt.Sprintf("[2001:db8:9:9::%x]:4000", i),
			header: map[string]string{"x-cron-secret": "wrong"}}).Code
	}
	if last != http.StatusTooManyRequests {
		t.Fatalf("wrong cron secret %d from one /64: %d, want 429", authFailuresPerMinute+1, last)
	}
}
