package transport

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/payledger/payledger/domain/subscription"
)

// TestSubscriptionStatusTakesTheMerchantsKey: GET /api/subscriptions/status?merchant=<wallet>
// refused the merchant's own subscription key (401: it wanted the dashboard's session), though
// the spec's /api/* routes take the key. A key of that wallet now reads the list as its session
// does; another wallet's key is 403; customer= stays session-only (a customer has no key).
func TestSubscriptionStatusTakesTheMerchantsKey(t *testing.T) {
	t.Parallel()
	e := newSubEnv(t)
	merchantKey, _ := crypto.GenerateKey()
	merchant := walletOf(merchantKey)
	customer := "0x00000000000000000000000000000000000000c7"
	st := subscription.State{Exists: true, ID: "sub_key_1", PlanID: "plan_x", Merchant: merchant, Customer: customer,
		Status: subscription.StatusActive, CreatedAt: 1_700_000_000_000}
	raw, _ := json.Marshal(st)
	if _, err := e.pool.Exec(context.Background(), `INSERT INTO subscriptions
		(subscription_id, plan_id, merchant, customer, status, next_charge_at, created_at, version, state)
		VALUES ($1, 'plan_x', $2, $3, 'active', 0, $4, 1, $5)`, st.ID, merchant, customer, st.CreatedAt, raw); err != nil {
		t.Fatal(err)
	}
	own := e.key(merchant, "receipts:read")
	otherKey, _ := crypto.GenerateKey()
	other := e.key(walletOf(otherKey), Scopes...)
	get := func(query, key string) (int, map[string]any) {
		rec := e.do(req{method: http.MethodGet, path: "/api/subscriptions/status?" + query,
			header: map[string]string{"Ocp-Apim-Subscription-Key": key}})
		return rec.Code, decode(t, rec)
	}
	for _, header := range []string{"Ocp-Apim-Subscription-Key", "x-api-key"} {
		rec := e.do(req{method: http.MethodGet, path: "/api/subscriptions/status?merchant=" + merchant,
			header: map[string]string{header: own}})
		subs, _ := decode(t, rec)["subscriptions"].([]any)
		if rec.Code != http.StatusOK || len(subs) != 1 || subs[0].(map[string]any)["subscriptionId"] != st.ID {
			t.Fatalf("own key as %s: %d %s, want the merchant's subscription", header, rec.Code, rec.Body)
		}
	}
	if code, body := get("merchant="+merchant, other); code != http.StatusForbidden || body["error"] != "forbidden" {
		t.Fatalf("another wallet's key: %d %v, want 403 forbidden", code, body)
	}
	if code, body := get("merchant="+merchant, "not-a-key"); code != http.StatusUnauthorized {
		t.Fatalf("an unknown key: %d %v, want 401", code, body)
	}
	if code, body := get("customer="+customer, e.key(customer, Scopes...)); code != http.StatusUnauthorized {
		t.Fatalf("customer= with a key: %d %v, want 401 (session only)", code, body)
	}
	// The session still reads it, and the public subscriptionId selector needs nothing.
	cookies, _ := e.login(merchantKey)
	if rec := e.do(req{method: http.MethodGet, path: "/api/subscriptions/status?merchant=" + merchant, cookies: cookies}); rec.Code != http.StatusOK {
		t.Fatalf("session: %d %s", rec.Code, rec.Body)
	}
	if rec := e.do(req{method: http.MethodGet, path: "/api/subscriptions/status?subscriptionId=nope"}); rec.Code != http.StatusNotFound {
		t.Fatalf("unknown subscriptionId: %d %s", rec.Code, rec.Body)
	}
}
