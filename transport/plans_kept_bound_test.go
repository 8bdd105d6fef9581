package transport

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/payledger/payledger/readmodels"
)

// TestPlansKeptBoundPerMerchant: a wallet keeps at most readmodels.MaxKeptPlans plans, active and
// inactive together. Before, only the active ones were bounded: create, deactivate, create again
// added a row each time, without end. At the bound a creation is 400 invalid_input, stores
// nothing, and its message says what to do instead (no route deletes a plan): change a plan it
// has, naming the oldest inactive plan no subscription was made from; that plan is then changed
// and reactivated. Deactivating does not make room (the plan is still kept).
func TestPlansKeptBoundPerMerchant(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	ctx := context.Background()
	merchant, _ := crypto.GenerateKey()
	wallet := walletOf(merchant)
	cookies, csrf := e.login(merchant)
	write := func(method, body string) (int, map[string]any) {
		rec := e.do(req{method: method, path: "/api/subscriptions/plans", body: body, cookies: cookies,
			header: map[string]string{CSRFHeader: csrf}})
		return rec.Code, decode(t, rec)
	}
	// MaxKeptPlans-1 inactive plans, the two oldest with a subscription made from the first.
	if _, err := e.pool.Exec(ctx, `INSERT INTO subscription_plans
		(plan_id, wallet, name, description, price_cents, period, active, created_at, updated_at)
		SELECT 'plan_kept_' || i, $1, 'Old', '', 100, 'WEEKLY', false, now() - interval '1 day' + i * interval '1 ms',
			now() - interval '1 day' + i * interval '1 ms' FROM generate_series(1, $2) AS i`,
		wallet, readmodels.MaxKeptPlans-1); err != nil {
		t.Fatal(err)
	}
	if _, err := e.pool.Exec(ctx, `INSERT INTO subscriptions (subscription_id, plan_id, merchant, customer, status,
		next_charge_at, created_at, version, state) VALUES ('sub_kept_1', 'plan_kept_1', $1, $2, 'cancelled', 0, 0, 1, '{}')`,
		wallet, "0x"+strings.Repeat("c", 40)); err != nil {
		t.Fatal(err)
	}
	create := fmt.Sprintf(`{"wallet":%q,"name":"Pro","priceUsd":1,"period":"WEEKLY"}`, wallet)
	code, body := write(http.MethodPost, create)
	if code != http.StatusCreated {
		t.Fatalf("plan %d: %d %v", readmodels.MaxKeptPlans, code, body)
	}
	last := body["plan"].(map[string]any)["planId"].(string)
	if code, body := write(http.MethodDelete, fmt.Sprintf(`{"planId":%q,"wallet":%q}`, last, wallet)); code != http.StatusOK {
		t.Fatalf("deactivate: %d %v", code, body)
	}
	code, body = write(http.MethodPost, create)
	msg, _ := body["message"].(string)
	if code != http.StatusBadRequest || body["error"] != "invalid_input" || !strings.Contains(msg, "plan_kept_2,") ||
		!strings.Contains(msg, fmt.Sprint(readmodels.MaxKeptPlans)) || !strings.Contains(msg, "PUT") {
		t.Fatalf("plan %d: %d %v; want 400 invalid_input naming plan_kept_2 (plan_kept_1 has a subscription) and PUT", readmodels.MaxKeptPlans+1, code, body)
	}
	var kept int
	if err := e.pool.QueryRow(ctx, `SELECT count(*) FROM subscription_plans WHERE wallet = $1`, wallet).Scan(&kept); err != nil || kept != readmodels.MaxKeptPlans {
		t.Fatalf("%d plans kept (%v), want %d: the refused creation stored one", kept, err, readmodels.MaxKeptPlans)
	}
	// What the message says works: the named plan is changed and reactivated.
	code, body = write(http.MethodPut, `{"planId":"plan_kept_2","name":"Pro","priceUsd":1,"period":"MONTHLY","active":true}`)
	if plan, _ := body["plan"].(map[string]any); code != http.StatusOK || plan["active"] != true || plan["period"] != "MONTHLY" {
		t.Fatalf("reuse the named plan: %d %v", code, body)
	}
}
