package transport

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestInventedKeysAreLimitedPerAddress: a request with a key nobody issued cost a lookup in the
// datastore and was limited by nothing (the per-key limit counts keys that authenticate), so a
// client could send any number of them. Refused keys are limited per client address as public
// routes are; a key in use from the same address is not held up.
func TestInventedKeysAreLimitedPerAddress(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(d *testDeps) { d.Config.PublicLimitPerMinute = 5 })
	good := e.key("0x"+strings.Repeat("ab", 20), "receipts:read")
	const attacker = "192.0.2.7:4000"
	ping := func(key, remote string) int {
		return e.do(req{method: http.MethodGet, path: "/api/status/ping", remote: remote,
			header: map[string]string{"Ocp-Apim-Subscription-Key": key}}).Code
	}
	if code := ping(good, attacker); code != http.StatusOK {
		t.Fatalf("the merchant's key: %d", code)
	}
	for i := range 5 {
		if code := ping("plk_invented"+strings.Repeat("x", i), attacker); code != http.StatusUnauthorized {
			t.Fatalf("invented key %d: %d, want 401", i, code)
		}
	}
	rec := e.do(req{method: http.MethodGet, path: "/api/status/ping", remote: attacker,
		header: map[string]string{"x-api-key": "plk_invented-again"}})
	if rec.Code != http.StatusTooManyRequests || decode(t, rec)["error"] != "rate_limited" {
		t.Fatalf("sixth refused key in a minute: %d %s, want 429 rate_limited", rec.Code, rec.Body)
	}
	if code := ping(good, attacker); code != http.StatusOK {
		t.Fatalf("the merchant's key in use from the same address: %d", code)
	}
	if code := ping("plk_invented", "198.51.100.9:4000"); code != http.StatusUnauthorized {
		t.Fatalf("another address: %d, want 401", code)
	}
	e.clk.Advance(61 * time.Second)
	if code := ping("plk_invented", attacker); code != http.StatusUnauthorized {
		t.Fatalf("after the minute: %d, want 401", code)
	}
}
