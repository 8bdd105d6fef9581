package transport

import (
	"fmt"
	"net/http"
	"net/http/httptest"
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

// An IPv6 client is one client across its /64, as on every per-address limit: rotating the
// interface part of its address gave it a fresh allowance of invented keys per address.
func TestInventedKeysAreLimitedPerIPv6Network(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(d *testDeps) { d.Config.PublicLimitPerMinute = 5 })
	ping := func(key, remote string) *httptest.ResponseRecorder {
		return e.do(req{method: http.MethodGet, path: "/api/status/ping", remote: remote,
			header: map[string]string{"Ocp-Apim-Subscription-Key": key}})
	}
	for i := range 5 {
		if rec := ping("plk_invented", fmt.Sprintf("[2001:db8:7:1::%x]:4000", i+1)); rec.Code != http.StatusUnauthorized {
			t.Fatalf("invented key %d: %d, want 401", i, rec.Code)
		}
	}
	if rec := ping("plk_invented", "[2001:db8:7:1::99]:4000"); rec.Code != http.StatusTooManyRequests {
		t.Fatalf("sixth refused key from the same /64: %d %s, want 429", rec.Code, rec.Body)
	}
	if rec := ping("plk_invented", "[2001:db8:7:2::1]:4000"); rec.Code != http.StatusUnauthorized {
		t.Fatalf("another /64: %d, want 401", rec.Code)
	}
}
