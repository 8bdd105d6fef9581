package transport

import (
	"context"
	"net/http"
	"strconv"
	"testing"

	"github.com/payledger/payledger/readmodels"
)

// A merchant's kept Idempotency-Key answers are bounded (readmodels.MaxKeptAnswers in 24 h):
// before, 50 keys at 600 requests a minute could keep some 43 million answers a day, each up to
// 1 MiB. At the bound a new key is refused 429 rate_limited with resetAt and nothing runs (not
// run unkept: a client relying on the key would act twice); replays, conflicts, requests without
// a key, orders (their own bindings) and other merchants are not refused; the count's hours leave
// it after 24 h.
func TestIdempotencyKeysBoundedPerMerchant(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(d *testDeps) { d.Config.Production = false })
	m, other := e.merchant(true), e.merchant(false)
	ctx := context.Background()
	if _, err := e.pool.Exec(ctx, `INSERT INTO idempotent_kept (principal, hour, answers) VALUES ($1, date_trunc('hour', now(), 'UTC') - interval '3 hours', $2)`,
		"wallet:"+m.wallet, readmodels.MaxKeptAnswers-1); err != nil {
		t.Fatal(err)
	}
	latte := `{"sku":"latte","name":"Latte","priceUsd":4.5}`
	if rec := e.dev(m, http.MethodPost, "/api/inventory", latte, "Idempotency-Key", "last"); rec.Code != 201 {
		t.Fatalf("the last key within the bound: %d %s", rec.Code, rec.Body)
	}
	rec := e.dev(m, http.MethodPost, "/api/inventory", `{"sku":"tea","name":"Tea","priceUsd":3}`, "Idempotency-Key", "past")
	if rec.Code != http.StatusTooManyRequests || decode(t, rec)["error"] != "rate_limited" {
		t.Fatalf("a new key past the bound: %d %s (want 429 rate_limited)", rec.Code, rec.Body)
	}
	reset, _ := decode(t, rec)["resetAt"].(float64)
	if want := e.clk.Now().Add(21 * 3600e9).UnixMilli(); reset < float64(want) || rec.Header().Get("Retry-After") == "" {
		t.Fatalf("resetAt %v (want about 22 h from now, when the oldest counted hour leaves), Retry-After %q", reset, rec.Header().Get("Retry-After"))
	}
	if n := e.count("inventory_items WHERE sku = 'tea'"); n != 0 {
		t.Fatal("the refused request ran")
	}
	if n := e.count("idempotent_responses WHERE key = 'past'"); n != 0 {
		t.Fatal("the refused key is held")
	}
	if rec := e.dev(m, http.MethodPost, "/api/inventory", latte, "Idempotency-Key", "last"); rec.Code != 201 || rec.Header().Get(idemReplayed) != "true" {
		t.Fatalf("a replay at the bound: %d %s (want the kept 201)", rec.Code, rec.Body)
	}
	if rec := e.dev(m, http.MethodPost, "/api/inventory", `{"sku":"tea","name":"Tea","priceUsd":3}`, "Idempotency-Key", "last"); rec.Code != http.StatusConflict {
		t.Fatalf("another request under a kept key at the bound: %d %s (want 409)", rec.Code, rec.Body)
	}
	if rec := e.dev(m, http.MethodPost, "/api/inventory", `{"sku":"tea","name":"Tea","priceUsd":3}`); rec.Code != 201 {
		t.Fatalf("without a key at the bound: %d %s", rec.Code, rec.Body)
	}
	if rec := e.dev(m, http.MethodPost, "/api/orders", `{"items":[{"sku":"latte","qty":1}]}`, "Idempotency-Key", "order-1"); rec.Code != 200 {
		t.Fatalf("an order under a key at the bound: %d %s", rec.Code, rec.Body)
	}
	if rec := e.dev(other, http.MethodPost, "/api/inventory", latte, "Idempotency-Key", "past"); rec.Code != 201 {
		t.Fatalf("another merchant's key: %d %s", rec.Code, rec.Body)
	}
	// 25 hours later the full hour has left the count: the key runs.
	if _, err := e.pool.Exec(ctx, `UPDATE idempotent_kept SET hour = hour - interval '22 hours' WHERE principal = $1 AND answers = $2`, "wallet:"+m.wallet, readmodels.MaxKeptAnswers-1); err != nil {
		t.Fatal(err)
	}
	if rec := e.dev(m, http.MethodPost, "/api/inventory", `{"sku":"mug","name":"Mug","priceUsd":3}`, "Idempotency-Key", "past"); rec.Code != 201 {
		t.Fatalf("a new key once the counted hour left the window: %d %s", rec.Code, rec.Body)
	}
	if n := e.count("idempotent_kept WHERE hour < now() - interval '25 hours'"); n != 0 {
		t.Fatal("the hour past the window is still counted")
	}
}

// POST /api/graphql is a read (there is no Mutation type): its answers under a key were kept
// (up to 1 MiB each) and replayed stale. A key on it is now checked, not kept, as on GET.
func TestGraphQLPostWithKeyIsNotKept(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(false)
	key := e.key(m.wallet, "graphql:read")
	for i, q := range []string{`{ leaderboard(first: 1) { wallet } }`, `{ leaderboard(first: 1) { wallet } }`, `{ leaderboard(first: 2) { wallet } }`} {
		rec := e.do(req{method: http.MethodPost, path: "/api/graphql", body: `{"query":` + strconv.Quote(q) + `}`,
			header: map[string]string{"Ocp-Apim-Subscription-Key": key, "Idempotency-Key": "read-1"}})
		if rec.Code != 200 || rec.Header().Get(idemReplayed) != "" {
			t.Fatalf("read %d under a key: %d %s replayed %q (want a fresh 200)", i, rec.Code, rec.Body, rec.Header().Get(idemReplayed))
		}
	}
	if n := e.count("idempotent_responses"); n != 0 {
		t.Fatalf("%d GraphQL answers kept", n)
	}
	rec := e.do(req{method: http.MethodPost, path: "/api/graphql", body: `{"query":"{ leaderboard { wallet } }"}`,
		header: map[string]string{"Ocp-Apim-Subscription-Key": key, "Idempotency-Key": ""}})
	if rec.Code != 400 || decode(t, rec)["error"] != "invalid_input" {
		t.Fatalf("an empty key: %d %s (want 400 invalid_input)", rec.Code, rec.Body)
	}
}
