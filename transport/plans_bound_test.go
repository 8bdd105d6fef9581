package transport

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/payledger/payledger/readmodels"
)

// TestPlansBoundPerMerchant: a wallet has at most readmodels.MaxPlans active plans: one more is
// 400 invalid_input, by creation or by reactivation, until one is deactivated. Before, any wallet
// that signed in could create plans without end, and the public list answered them all.
func TestPlansBoundPerMerchant(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	merchant, _ := crypto.GenerateKey()
	wallet := walletOf(merchant)
	cookies, csrf := e.login(merchant)
	write := func(method, body string) (int, map[string]any) {
		rec := e.do(req{method: method, path: "/api/subscriptions/plans", body: body, cookies: cookies,
			header: map[string]string{CSRFHeader: csrf}})
		return rec.Code, decode(t, rec)
	}
	create := fmt.Sprintf(`{"wallet":%q,"name":"Pro","priceUsd":1,"period":"WEEKLY"}`, wallet)
	code, body := write(http.MethodPost, create)
	if code != http.StatusCreated {
		t.Fatalf("first plan: %d %v", code, body)
	}
	first := body["plan"].(map[string]any)["planId"].(string)
	if _, err := e.pool.Exec(context.Background(), `INSERT INTO subscription_plans
		(plan_id, wallet, name, description, price_cents, period, active, created_at, updated_at)
		SELECT 'plan_bulk_' || i, $1, 'Bulk', '', 100, 'WEEKLY', true, now(), now() FROM generate_series(2, $2) AS i`,
		wallet, readmodels.MaxPlans); err != nil {
		t.Fatal(err)
	}
	if code, body := write(http.MethodPost, create); code != http.StatusBadRequest || body["error"] != "invalid_input" {
		t.Fatalf("plan %d: %d %v, want 400 invalid_input", readmodels.MaxPlans+1, code, body)
	}
	rec := e.do(req{method: http.MethodGet, path: "/api/subscriptions/plans?wallet=" + wallet})
	if plans, _ := decode(t, rec)["plans"].([]any); len(plans) != readmodels.MaxPlans {
		t.Fatalf("listed %d plans, want %d", len(plans), readmodels.MaxPlans)
	}
	// Deactivating one makes room; reactivating it while full is refused.
	if code, body := write(http.MethodDelete, fmt.Sprintf(`{"planId":%q,"wallet":%q}`, first, wallet)); code != http.StatusOK {
		t.Fatalf("deactivate: %d %v", code, body)
	}
	if code, body := write(http.MethodPost, create); code != http.StatusCreated {
		t.Fatalf("after a deactivation: %d %v", code, body)
	}
	if code, body := write(http.MethodPut, fmt.Sprintf(`{"planId":%q,"active":true}`, first)); code != http.StatusBadRequest || body["error"] != "invalid_input" {
		t.Fatalf("reactivation while full: %d %v, want 400 invalid_input", code, body)
	}
	// An inactive plan can still be edited, and an active one changed, while full.
	if code, body := write(http.MethodPut, fmt.Sprintf(`{"planId":%q,"name":"Old"}`, first)); code != http.StatusOK {
		t.Fatalf("edit an inactive plan while full: %d %v", code, body)
	}
	if code, body := write(http.MethodPut, `{"planId":"plan_bulk_2","active":true,"priceUsd":2}`); code != http.StatusOK {
		t.Fatalf("edit an active plan while full: %d %v", code, body)
	}
}
