package transport

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// TestSplitDeploymentsTheOperatorPaysForHaveAnHourlyBudget: the per-address bound left a client
// with many addresses (a botnet, a /48's 256 /56s) SplitDeploysPerHour deployments an address
// at the operator's expense. The deployments the operator pays for are bounded for the service
// too (Config.SplitDeployBudgetPerHour, RATE_LIMIT_SPLIT_DEPLOY_BUDGET_PER_HOUR): through the
// service on the development chain, with a budget of 2, two fresh wallets from two addresses get
// their split; a third from a third address is 429 rate_limited with resetAt, Retry-After and a
// message saying what to do, nothing is deployed, the spent budget is logged once, and /healthz
// names it while it lasts (from the second deployment on: the count left none).
func TestSplitDeploymentsTheOperatorPaysForHaveAnHourlyBudget(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const budget = 2
	e, _ := newOperatorEnv(t, func(d *testDeps) { d.Config.SplitDeployBudgetPerHour = budget })

	deploy := func(i int) *httpResult {
		m := e.merchant(false)
		rec := e.do(req{method: http.MethodPost, path: "/api/split/deploy", body: `{}`, cookies: m.cookies,
			header: map[string]string{CSRFHeader: m.csrf}, remote: fmt.Sprintf("198.51.100.%d:4000", i)})
		return &httpResult{code: rec.Code, header: rec.Header(), body: decode(t, rec)}
	}
	for i := range budget {
		if r := deploy(i + 1); r.code != http.StatusOK {
			t.Fatalf("deployment %d of the hour: %d %v", i+1, r.code, r.body)
		}
		if exhausted := e.healthz()["exhausted"]; i == 0 && exhausted != nil {
			t.Fatalf("/healthz names %v with a deployment of the budget left", exhausted)
		}
	}
	for i := range 2 {
		r := deploy(budget + 1 + i)
		msg, _ := r.body["message"].(string)
		if r.code != http.StatusTooManyRequests || r.body["error"] != "rate_limited" || r.body["resetAt"] == nil ||
			r.header.Get("Retry-After") == "" || !strings.Contains(msg, "splitAddress") {
			t.Fatalf("deployment %d of the hour, from a new address: %d %v; want 429 rate_limited naming splitAddress", budget+1+i, r.code, r.body)
		}
	}
	var deployed int
	if err := e.pool.QueryRow(ctx, `SELECT count(*) FROM operator_transactions`).Scan(&deployed); err != nil {
		t.Fatal(err)
	}
	if deployed != budget {
		t.Fatalf("the operator sent %d transactions, want %d deployments", deployed, budget)
	}
	exhausted, _ := e.healthz()["exhausted"].([]any)
	if len(exhausted) != 1 || !strings.Contains(fmt.Sprint(exhausted[0]), "RATE_LIMIT_SPLIT_DEPLOY_BUDGET_PER_HOUR") {
		t.Fatalf("/healthz exhausted = %v, want the split deployments' budget named", exhausted)
	}
	if n := strings.Count(e.logs.String(), "RATE_LIMIT_SPLIT_DEPLOY_BUDGET_PER_HOUR"); n != 1 {
		t.Fatalf("the spent budget was logged %d times, want once:\n%s", n, e.logs.String())
	}
}

// httpResult is an answer's code, headers and decoded body.
type httpResult struct {
	code   int
	header http.Header
	body   map[string]any
}

// healthz is GET /healthz's body.
func (e *env) healthz() map[string]any {
	e.t.Helper()
	return decode(e.t, e.do(req{method: http.MethodGet, path: "/healthz"}))
}
