package transport

import (
	"context"
	"net/http"
	"testing"
)

// TestSplitDeploymentsThePlatformPaysForAreBoundedPerAddress: with a chain operator, POST
// /api/split/deploy without splitAddress makes the operator deploy a split contract (about 1.4 M
// gas) for any merchant that has none, and any wallet signs in as a merchant. Through the
// service as serve builds it, on the development chain: one client address signing in fresh
// wallets gets SplitDeploysPerHour deployments an hour; the next is 429 rate_limited with resetAt,
// and nothing is deployed for it. Before, every fresh wallet had its contract deployed at the
// operator's expense. A merchant naming its own contract (splitAddress) is not counted.
func TestSplitDeploymentsThePlatformPaysForAreBoundedPerAddress(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e, dev := newOperatorEnv(t, nil)

	deploy := func() (int, map[string]any) {
		m := e.merchant(false) // a fresh wallet, signed in from the same address as the others
		rec := e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/split/deploy", `{}`)
		return rec.Code, decode(t, rec)
	}
	for i := range SplitDeploysPerHour {
		code, body := deploy()
		split, _ := body["split"].(map[string]any)
		if code != http.StatusOK || split == nil || split["address"] == nil {
			t.Fatalf("deployment %d of the hour: %d %v", i+1, code, body)
		}
	}
	code, body := deploy()
	if code != http.StatusTooManyRequests || body["error"] != "rate_limited" || body["resetAt"] == nil {
		t.Fatalf("deployment %d of the hour from one address: %d %v; want 429 rate_limited, nothing deployed", SplitDeploysPerHour+1, code, body)
	}
	var deployed int
	if err := e.pool.QueryRow(ctx, `SELECT count(*) FROM operator_transactions`).Scan(&deployed); err != nil {
		t.Fatal(err)
	}
	if deployed != SplitDeploysPerHour {
		t.Fatalf("the operator sent %d transactions, want %d deployments", deployed, SplitDeploysPerHour)
	}
	// A merchant that brings its own contract costs the operator nothing: not counted.
	m := e.merchant(false)
	own := dev.Tokens[0].Address.Hex() // any address holding code on the chain
	rec := e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/split/deploy", `{"splitAddress":"`+own+`"}`)
	if rec.Code == http.StatusTooManyRequests {
		t.Fatalf("a pre-deployed split was refused by the deployments' bound: %s", rec.Body)
	}
}
