package transport

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"testing"
	"time"
)

// plansOf is how many plans, active or not, wallet has.
func (e *env) plansOf(wallet string) int {
	e.t.Helper()
	var n int
	if err := e.pool.QueryRow(context.Background(), `SELECT count(*) FROM subscription_plans WHERE wallet = lower($1)`, wallet).Scan(&n); err != nil {
		e.t.Fatal(err)
	}
	return n
}

// TestPlanCreationsAreBoundedPerMerchant: readmodels.MaxPlans bounds a merchant's active plans
// only, so create then deactivate added an inactive row each time without end. A merchant now
// creates PlanCreatesPerHour plans an hour: past that, 429 rate_limited with resetAt and
// Retry-After, and no plan stored. Changing and deactivating plans are not counted, bad input is
// not counted, another merchant is not held up, and one more is allowed 36 s later.
func TestPlanCreationsAreBoundedPerMerchant(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m, other := e.merchant(false), e.merchant(false)
	create := func(m merchant, name string) *httpResponse {
		rec := e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/subscriptions/plans",
			fmt.Sprintf(`{"wallet":%q,"name":%q,"priceUsd":1,"period":"WEEKLY"}`, m.wallet, name))
		return &httpResponse{code: rec.Code, header: rec.Header(), body: decode(t, rec)}
	}
	if r := create(m, ""); r.code != http.StatusBadRequest {
		t.Fatalf("a plan without a name: %d %v", r.code, r.body)
	}
	var last string
	for i := range PlanCreatesPerHour {
		r := create(m, fmt.Sprintf("Plan %d", i))
		if r.code != http.StatusCreated {
			t.Fatalf("plan %d: %d %v", i+1, r.code, r.body)
		}
		last = r.body["plan"].(map[string]any)["planId"].(string)
		// The probe's pattern: each plan deactivated before the next, so the active bound never bites.
		if rec := e.adminCall(m.cookies, m.csrf, http.MethodDelete, "/api/subscriptions/plans",
			fmt.Sprintf(`{"planId":%q,"wallet":%q}`, last, m.wallet)); rec.Code != http.StatusOK {
			t.Fatalf("deactivate %d: %d %s", i+1, rec.Code, rec.Body)
		}
	}
	r := create(m, "One more")
	retry, _ := strconv.Atoi(r.header.Get("Retry-After"))
	if r.code != http.StatusTooManyRequests || r.body["error"] != "rate_limited" || r.body["resetAt"] == nil || retry < 1 || retry > 36 {
		t.Fatalf("past %d an hour: %d %v (Retry-After %q), want 429 rate_limited within 36 s", PlanCreatesPerHour, r.code, r.body, r.header.Get("Retry-After"))
	}
	if n := e.plansOf(m.wallet); n != PlanCreatesPerHour {
		t.Fatalf("%d plans stored, want %d: a refused creation stored one", n, PlanCreatesPerHour)
	}
	// The merchant still replaces plans: by changing one, or reactivating it.
	if rec := e.adminCall(m.cookies, m.csrf, http.MethodPut, "/api/subscriptions/plans",
		fmt.Sprintf(`{"planId":%q,"active":true,"priceUsd":2}`, last)); rec.Code != http.StatusOK {
		t.Fatalf("change a plan past the creations bound: %d %s", rec.Code, rec.Body)
	}
	if r := create(other, "Other"); r.code != http.StatusCreated {
		t.Fatalf("another merchant: %d %v", r.code, r.body)
	}
	e.clk.Advance(time.Hour / PlanCreatesPerHour)
	if r := create(m, "Later"); r.code != http.StatusCreated {
		t.Fatalf("36 s later: %d %v", r.code, r.body)
	}
}
