package transport

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// probeRoute is a JSON route TestMalformedBodies does not list, with its method.
type probeRoute struct {
	method, path, auth string // auth: merchant (session), public, cron
	field              string // a field of the body, for duplicate keys
	wrongType          string
}

// probeTables are the tables a refused request on those routes must leave alone.
var probeTables = []string{"events", "webhook_endpoints", "webhook_endpoint_messages", "subscription_plans", "subscriptions",
	"subscription_charges", "follows", "users", "revoked_sessions", "wallet_session_cutoffs", "idempotent_responses"}

// TestMalformedBodiesOnTheOtherRoutes (stop 73, second probe): the bodies of TestMalformedBodies
// sent to the JSON routes it does not list (webhook endpoints, plans, subscriptions, unfollow,
// logout-all, the cron charge) answer 400 invalid_input (413 payload_too_large over the size)
// in the error envelope, and write nothing.
func TestMalformedBodiesOnTheOtherRoutes(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(true)
	epID, _ := e.createEndpoint(m, "https://hooks.example.com/x", "*")
	rec := e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/subscriptions/plans",
		fmt.Sprintf(`{"wallet":%q,"name":"Pro","description":"d","priceUsd":9.99,"period":"MONTHLY"}`, m.wallet))
	if rec.Code != http.StatusCreated {
		t.Fatalf("plan: %d %s", rec.Code, rec.Body)
	}
	planID := decode(t, rec)["plan"].(map[string]any)["planId"].(string)
	w := fmt.Sprintf("%q", m.wallet)
	routes := []probeRoute{
		{"POST", "/api/webhooks/endpoints", "merchant", "url", `{"url":12,"events":["*"]}`},
		{"POST", "/api/subscriptions/plans", "merchant", "name", `{"wallet":` + w + `,"name":"x","priceUsd":"9.99","period":"MONTHLY"}`},
		{"PUT", "/api/subscriptions/plans", "merchant", "planId", `{"planId":` + fmt.Sprintf("%q", planID) + `,"priceUsd":"1"}`},
		{"DELETE", "/api/subscriptions/plans", "merchant", "planId", `{"planId":12,"wallet":` + w + `}`},
		{"POST", "/api/subscriptions/create", "public", "planId", `{"planId":12,"customerWallet":` + w + `}`},
		{"POST", "/api/subscriptions/cancel", "merchant", "subscriptionId", `{"subscriptionId":12,"wallet":` + w + `}`},
		{"POST", "/api/subscriptions/charge", "cron", "subscriptionId", `{"subscriptionId":12}`},
		{"DELETE", "/api/users/follow", "merchant", "wallet", `{"wallet":12}`},
		{"POST", "/api/webhooks/endpoints/" + epID + "/secret/rotate", "merchant", "x", `{"x":12}`},
		{"POST", "/api/webhooks/endpoints/" + epID + "/test", "merchant", "x", `{"x":12}`},
	}
	deep := `{"a":` + strings.Repeat("[", 10_000) + strings.Repeat("]", 10_000) + `}`
	huge := `{"name":"` + strings.Repeat("x", MaxBodyBytes) + `"}`
	for _, r := range routes {
		bodies := []struct{ name, body string }{
			{"truncated", `{"` + r.field + `":`},
			{"array", `[{"` + r.field + `":"x"}]`},
			{"string", `"x"`},
			{"wrong type", r.wrongType},
			{"deep nesting", deep},
			{"invalid UTF-8", `{"` + r.field + `":"\xff\xfe"}`},
			{"NUL", `{"` + r.field + `":"a\u0000b"}`},
			{"1e400", `{"` + r.field + `":1e400}`},
			{"duplicate keys", `{"` + r.field + `":"a","` + r.field + `":"a"}`},
			{"unknown field", `{"zzUnknown":1}`},
			{"trailing data", `{} {}`},
			{"over-size", huge},
		}
		for _, b := range bodies {
			t.Run(r.method+" "+r.path+"/"+b.name, func(t *testing.T) {
				before := e.probeCounts()
				rec := e.sendProbe(r, m, b.body)
				want, code := 400, "invalid_input"
				if b.name == "over-size" {
					want, code = 413, "payload_too_large"
				}
				if rec.Code != want {
					t.Errorf("%d %s, want %d", rec.Code, clip(rec.Body.String()), want)
				} else if body := decode(t, rec); body["error"] != code || body["message"] == nil {
					t.Errorf("envelope %v, want %s with a message", body, code)
				}
				if after := e.probeCounts(); after != before {
					t.Errorf("rows changed: %s -> %s", before, after)
				}
			})
		}
	}
}

func (e *env) probeCounts() string { return e.countsOf(probeTables) }

// sendProbe sends body to r as its caller would, outside the recorded exchanges (as send).
func (e *env) sendProbe(r probeRoute, m merchant, body string) *httptest.ResponseRecorder {
	hr := httptest.NewRequest(r.method, r.path, strings.NewReader(body))
	hr.Header.Set("Content-Type", "application/json")
	switch r.auth {
	case "cron":
		hr.Header.Set("x-cron-secret", testCronSecret)
	case "merchant":
		hr.Header.Set(CSRFHeader, m.csrf)
		for _, c := range m.cookies {
			hr.AddCookie(c)
		}
	}
	rec := httptest.NewRecorder()
	e.srv.ServeHTTP(rec, hr)
	return rec
}
