package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestServeLimitsSubscriptionCreationsAsConfigured: serve reads
// RATE_LIMIT_SUBSCRIPTION_CREATE_PER_HOUR and its HTTP layer counts every
// POST /api/subscriptions/create of a client address against it, refused ones included: with 2,
// the third from one address within the hour is 429 rate_limited (the public limit, 60 a minute,
// is far from spent).
func TestServeLimitsSubscriptionCreationsAsConfigured(t *testing.T) {
	t.Parallel()
	base, _ := startServe(t, map[string]string{"DEVCHAIN": "off", "RATE_LIMIT_SUBSCRIPTION_CREATE_PER_HOUR": "2"})
	create := func() (int, http.Header, map[string]any) { return postEmptySubscription(t, base) }
	for i := range 2 {
		if code, _, body := create(); code != http.StatusBadRequest {
			t.Fatalf("creation %d: %d %v, want 400 (an empty body)", i, code, body)
		}
	}
	code, h, body := create()
	if code != http.StatusTooManyRequests || body["error"] != "rate_limited" || h.Get("X-RateLimit-Limit") != "2" || h.Get("Retry-After") == "" {
		t.Fatalf("third creation: %d %v %v, want 429 rate_limited with limit 2 and Retry-After", code, h, body)
	}
}

// postEmptySubscription sends POST /api/subscriptions/create with an empty body to base (400,
// counted against the hourly bound of the client's address): its status, headers and body.
func postEmptySubscription(t *testing.T, base string) (int, http.Header, map[string]any) {
	t.Helper()
	resp, err := http.Post(base+"/api/subscriptions/create", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&body)
	return resp.StatusCode, resp.Header, body
}
