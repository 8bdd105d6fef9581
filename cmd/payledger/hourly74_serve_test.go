package main

import (
	"net/http"
	"testing"

	"github.com/payledger/payledger/migrations/pgtest"
)

// TestServeHourlyBoundsHoldAcrossInstances: two serve instances on one database without
// REDIS_URL count the hourly bounds once for both (stop 74). With
// RATE_LIMIT_SUBSCRIPTION_CREATE_PER_HOUR=3, three creations from one address spread over the two
// are counted (400: an empty body), and the fourth is 429 rate_limited on either instance, with
// Retry-After and the X-RateLimit-* headers. Each instance counted on its own before: 3 on each.
func TestServeHourlyBoundsHoldAcrossInstances(t *testing.T) {
	t.Parallel()
	vars := map[string]string{"DEVCHAIN": "off", "RATE_LIMIT_SUBSCRIPTION_CREATE_PER_HOUR": "3", "DATABASE_URL": pgtest.URL(t)}
	a, _ := startServe(t, vars)
	b, _ := startServe(t, vars)
	create := func(base string) (int, http.Header, map[string]any) { return postEmptySubscription(t, base) }
	for i, base := range []string{a, b, a} {
		if code, _, body := create(base); code != http.StatusBadRequest {
			t.Fatalf("creation %d: %d %v, want 400 (an empty body, counted)", i+1, code, body)
		}
	}
	for _, base := range []string{b, a} {
		code, h, body := create(base)
		if code != http.StatusTooManyRequests || body["error"] != "rate_limited" || body["resetAt"] == nil ||
			h.Get("X-RateLimit-Limit") != "3" || h.Get("X-RateLimit-Remaining") != "0" || h.Get("Retry-After") == "" {
			t.Fatalf("a fourth creation on %s: %d %v %v, want 429 rate_limited with limit 3 and Retry-After", base, code, h, body)
		}
	}
}
