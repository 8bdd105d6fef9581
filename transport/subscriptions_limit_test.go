package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/cmd/payledger/app"
	"github.com/payledger/payledger/domain/subscription"
	"github.com/payledger/payledger/readmodels"
	"github.com/payledger/payledger/transport/ratelimit"
)

// newLimitedSubEnv is newSubEnv with at most perHour subscription creations per client address
// (0: the default).
func newLimitedSubEnv(t *testing.T, perHour int) subEnv {
	t.Helper()
	e := newAppEnv(t, func(c *app.Config) {
		c.Subscriptions = app.Subscriptions{Signer: chain.SpendPermissions{ChainID: 8453, Manager: testManager},
			Operator: testOperator, USDC: testUSDC}
	}, func(d *testDeps) { d.Config.SubscriptionCreatesPerHour = perHour }, nil)
	return subEnv{env: e, plans: readmodels.NewPlans(e.pool)}
}

// createFrom sends a creation with body from remote.
func (e subEnv) createFrom(remote, body string) (*http.Response, map[string]any) {
	e.t.Helper()
	rec := e.do(req{method: http.MethodPost, path: "/api/subscriptions/create", body: body, remote: remote})
	return rec.Result(), decode(e.t, rec)
}

// createBody is a creation's JSON body.
func createBody(planID, customer, sig string, p subscription.Permission) string {
	pd, _ := json.Marshal(p)
	return fmt.Sprintf(`{"planId":%q,"customerWallet":%q,"permissionSignature":%q,"permissionData":%s}`, planID, customer, sig, pd)
}

func (e subEnv) subscriptionCount() int {
	e.t.Helper()
	var n int
	if err := e.pool.QueryRow(context.Background(), `SELECT count(*) FROM subscriptions`).Scan(&n); err != nil {
		e.t.Fatal(err)
	}
	return n
}

// TestSubscriptionCreationsAreLimitedPerAddress: POST /api/subscriptions/create is public, and
// every subscription it creates is charged, and fails, each period with a webhook to the plan's
// merchant; it was bounded only by the public limit (60 a minute per address). Now one address
// sends at most SubscriptionCreatesPerHour an hour, refused ones included: past it, 429
// rate_limited with the headers of every limit, and nothing is created. Other addresses are not
// touched, and the limit comes back over the hour (one every hour / limit).
func TestSubscriptionCreationsAreLimitedPerAddress(t *testing.T) {
	t.Parallel()
	e := newLimitedSubEnv(t, 3)
	customerKey, _ := crypto.GenerateKey()
	merchantKey, _ := crypto.GenerateKey()
	customer := walletOf(customerKey)
	planID := e.plan(walletOf(merchantKey), 1000, "MONTHLY", true)
	valid := func() string { // a new permission (salt) each time: never the same one twice
		p := permission(customer, planID)
		p.Salt = fmt.Sprint(time.Now().UnixNano())
		return createBody(planID, customer, signPermission(t, customerKey, p), p)
	}
	const addr = "192.0.2.50:4000"
	if res, body := e.createFrom(addr, valid()); res.StatusCode != http.StatusCreated || res.Header.Get("X-RateLimit-Remaining") != "2" {
		t.Fatalf("first creation: %d %v %v", res.StatusCode, res.Header, body)
	}
	for i := range 2 {
		if res, body := e.createFrom(addr, `{}`); res.StatusCode != http.StatusBadRequest {
			t.Fatalf("refused creation %d: %d %v", i, res.StatusCode, body)
		}
	}
	res, body := e.createFrom(addr, valid())
	assertLimited(t, headerOnly(res.Header), res.StatusCode, body, e.clk.Now())
	if res.Header.Get("X-RateLimit-Limit") != "3" || res.Header.Get("Retry-After") != "1200" {
		t.Fatalf("fourth creation within the hour: headers %v, want limit 3 and Retry-After 1200 (20 minutes)", res.Header)
	}
	if n := e.subscriptionCount(); n != 1 {
		t.Fatalf("%d subscriptions after the refused creation, want 1", n)
	}
	if res, body := e.createFrom("192.0.2.51:4000", valid()); res.StatusCode != http.StatusCreated {
		t.Fatalf("another address: %d %v", res.StatusCode, body)
	}
	e.clk.Advance(20 * time.Minute)
	if res, body := e.createFrom(addr, valid()); res.StatusCode != http.StatusCreated {
		t.Fatalf("20 minutes later: %d %v, want one more", res.StatusCode, body)
	}
}

// TestSubscriptionCreationLimitDefaultsAndCountsASlash56: with no limit configured, an address
// has DefaultSubscriptionCreatesPerHour creations an hour; an IPv6 client is counted by its /64
// and its /56 (ratelimit.WiderMultiple times the limit), so rotating /64s of a /56 does not
// multiply it.
func TestSubscriptionCreationLimitDefaultsAndCountsASlash56(t *testing.T) {
	t.Parallel()
	e := newLimitedSubEnv(t, 0)
	for i := range DefaultSubscriptionCreatesPerHour {
		if res, body := e.createFrom("192.0.2.60:4000", `{}`); res.StatusCode != http.StatusBadRequest {
			t.Fatalf("creation %d: %d %v", i, res.StatusCode, body)
		}
	}
	res, body := e.createFrom("192.0.2.60:4000", `{}`)
	assertLimited(t, headerOnly(res.Header), res.StatusCode, body, e.clk.Now())

	const perNet = DefaultSubscriptionCreatesPerHour
	for sub := range ratelimit.WiderMultiple {
		for i := range perNet {
			remote := fmt.Sprintf("[2001:db8:7:%x::%x]:4000", sub, i+1)
			if res, body := e.createFrom(remote, `{}`); res.StatusCode != http.StatusBadRequest {
				t.Fatalf("%s: %d %v", remote, res.StatusCode, body)
			}
		}
	}
	res, body = e.createFrom("[2001:db8:7:ff::1]:4000", `{}`)
	assertLimited(t, headerOnly(res.Header), res.StatusCode, body, e.clk.Now())
	if res, body := e.createFrom("[2001:db8:7:100::1]:4000", `{}`); res.StatusCode != http.StatusBadRequest {
		t.Fatalf("a /64 of another /56: %d %v", res.StatusCode, body)
	}
}

// downHourLimiter is a limiter that counts per hour and whose store does not answer.
type downHourLimiter struct{ downLimiter }

func (downHourLimiter) AllowEvery(context.Context, string, int, time.Duration) (ratelimit.Result, error) {
	return ratelimit.Result{}, errors.New("redis: connection refused")
}

// TestSubscriptionCreationsStayLimitedWhileTheLimiterIsDown: with Redis down the other limits let
// requests through (the API stays up); creations are counted in the instance instead, as failed
// credentials are, so an outage does not open the route to unbounded creations.
func TestSubscriptionCreationsStayLimitedWhileTheLimiterIsDown(t *testing.T) {
	t.Parallel()
	for name, l := range map[string]Limiter{"failing": downHourLimiter{}, "per minute only": downLimiter{}} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newAppEnv(t, nil, func(d *testDeps) { d.Limiter = l; d.Config.SubscriptionCreatesPerHour = 2 }, nil)
			se := subEnv{env: e}
			for i := range 2 {
				if res, body := se.createFrom("192.0.2.70:4000", `{}`); res.StatusCode != http.StatusBadRequest {
					t.Fatalf("creation %d: %d %v", i, res.StatusCode, body)
				}
			}
			res, body := se.createFrom("192.0.2.70:4000", `{}`)
			assertLimited(t, headerOnly(res.Header), res.StatusCode, body, e.clk.Now())
		})
	}
}
