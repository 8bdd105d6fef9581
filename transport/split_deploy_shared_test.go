package transport

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/readmodels"
	"github.com/payledger/payledger/transport/ratelimit"
)

// TestTwoInstancesWithoutRedisShareTheSplitDeployBudget: without Redis each instance counted
// the operator's budget of split deployments in its own limiter, so two instances let the
// operator pay for twice it. Two instances of the service on one database, each with its
// in-process limiter (Redis off), budget 2: a deployment through each is let through, the third
// (through the first) and the fourth (through the second, which never refused) are 429 and the
// operator sent 2 transactions. The second instance's /healthz, read before, names the spent
// budget once its count is a read old (it did not refuse, nor spend the last place), and reads the
// count at most once per budgetReadEvery however often it is asked.
func TestTwoInstancesWithoutRedisShareTheSplitDeployBudget(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const budget = 2
	a, _ := newOperatorEnv(t, func(d *testDeps) { d.Config.SplitDeployBudgetPerHour = budget })
	reads := &countedBudget{SplitBudgetStore: readmodels.NewSplitBudget(a.pool)}
	b := a.secondInstance(func(d *testDeps) { d.SplitBudget = reads })

	deploy := func(through *env, i int) *httpResult {
		m := a.merchant(false)
		rec := through.do(req{method: http.MethodPost, path: "/api/split/deploy", body: `{}`, cookies: m.cookies,
			header: map[string]string{CSRFHeader: m.csrf}, remote: fmt.Sprintf("198.51.100.%d:4000", i)})
		return &httpResult{code: rec.Code, header: rec.Header(), body: decode(t, rec)}
	}
	for range 3 {
		if exhausted := b.healthz()["exhausted"]; exhausted != nil {
			t.Fatalf("/healthz names %v before any deployment", exhausted)
		}
	}
	if n := reads.count.Load(); n != 1 {
		t.Fatalf("three /healthz within %s read the count %d times, want once", budgetReadEvery, n)
	}
	for i, through := range []*env{b, a} {
		if r := deploy(through, i+1); r.code != http.StatusOK {
			t.Fatalf("deployment %d of the hour: %d %v", i+1, r.code, r.body)
		}
	}
	refused := func(through *env, i int) {
		t.Helper()
		r := deploy(through, i)
		msg, _ := r.body["message"].(string)
		if r.code != http.StatusTooManyRequests || r.body["error"] != "rate_limited" || !strings.Contains(msg, "splitAddress") ||
			r.header.Get("X-RateLimit-Limit") != fmt.Sprint(budget) || r.header.Get("X-RateLimit-Remaining") != "0" {
			t.Fatalf("deployment %d of the hour: %d %v %v; want 429 rate_limited naming splitAddress", i, r.code, r.header, r.body)
		}
	}
	refused(a, 3)
	a.clk.Advance(budgetReadEvery)
	exhausted, _ := b.healthz()["exhausted"].([]any)
	if len(exhausted) != 1 || !strings.Contains(fmt.Sprint(exhausted[0]), "RATE_LIMIT_SPLIT_DEPLOY_BUDGET_PER_HOUR") {
		t.Fatalf("the other instance's /healthz exhausted = %v, want the split deployments' budget named", exhausted)
	}
	refused(b, 4)
	var deployed int
	if err := a.pool.QueryRow(ctx, `SELECT count(*) FROM operator_transactions`).Scan(&deployed); err != nil {
		t.Fatal(err)
	}
	if deployed != budget {
		t.Fatalf("the operator sent %d transactions, want %d deployments", deployed, budget)
	}
}

// countedBudget counts the reads of the budget's count.
type countedBudget struct {
	SplitBudgetStore
	count atomic.Int64
}

func (c *countedBudget) Count(ctx context.Context) (readmodels.BudgetCount, error) {
	c.count.Add(1)
	return c.SplitBudgetStore.Count(ctx)
}

// secondInstance is another instance of e's service on e's database, with e's configuration,
// clock and chain but a limiter of its own (in-process: no Redis) and its own log; mutate may
// replace its HTTP dependencies. Its requests go through e.do on a copy of e.
func (e *env) secondInstance(mutate func(*testDeps)) *env {
	e.t.Helper()
	cfg := e.svc.Config
	cfg.JournalPath = filepath.Join(e.t.TempDir(), "journal.jsonl")
	svc, deps, err := BuildService(context.Background(), cfg, e.srv.cfg, ratelimit.NewMemory(e.clk.Now), 8453, zerolog.New(&syncBuffer{}))
	if err != nil {
		e.t.Fatal(err)
	}
	d := &testDeps{Deps: deps}
	d.DB = pinger{}
	if mutate != nil {
		mutate(d)
	}
	other := *e
	other.svc = svc
	if other.srv, err = New(d.Deps); err != nil {
		e.t.Fatal(err)
	}
	return &other
}
