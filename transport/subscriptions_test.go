package transport

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/cmd/payledger/app"
	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/subscription"
	"github.com/payledger/payledger/readmodels"
)

const (
	testManager  = "0x1111111111111111111111111111111111111111"
	testOperator = "0x2222222222222222222222222222222222222222"
	testUSDC     = "0x3333333333333333333333333333333333333333"
)

// subEnv is an env with subscriptions configured (chain 8453, the manager, operator and USDC
// above); newEnv runs the subscriptions projector.
type subEnv struct {
	*env
	plans *readmodels.Plans
}

func newSubEnv(t *testing.T) subEnv {
	t.Helper()
	e := newAppEnv(t, func(c *app.Config) {
		c.Subscriptions = app.Subscriptions{Signer: chain.SpendPermissions{ChainID: 8453, Manager: testManager},
			Operator: testOperator, USDC: testUSDC}
	}, nil, nil)
	return subEnv{env: e, plans: readmodels.NewPlans(e.pool)}
}

func (e subEnv) plan(merchant string, price money.Cents, period string, active bool) string {
	e.t.Helper()
	p, err := e.plans.Create(context.Background(), readmodels.Plan{ID: "plan_" + newID(), Wallet: merchant, Name: "Pro",
		Price: price, Period: period}, time.Now())
	if err != nil {
		e.t.Fatal(err)
	}
	if !active {
		off := false
		if _, err := e.plans.Update(context.Background(), p.ID, merchant, readmodels.PlanPatch{Active: &off}, time.Now()); err != nil {
			e.t.Fatal(err)
		}
	}
	return p.ID
}

// permission is a valid monthly permission of customer for 10 USDC a period on plan (its
// extraData names it), started a minute ago.
func permission(customer, plan string) subscription.Permission {
	now := time.Now().Unix()
	return subscription.Permission{Account: customer, Spender: testOperator, Token: testUSDC, Allowance: "10000000",
		Period: 30 * 24 * 3600, Start: now - 60, End: now + 365*24*3600, Salt: "7", ExtraData: subscription.PlanBinding(plan)}
}

func signPermission(t testing.TB, key *ecdsa.PrivateKey, p subscription.Permission) string {
	t.Helper()
	cp, err := chain.SpendPermissionContract(p)
	if err != nil {
		t.Fatal(err)
	}
	sig, err := chain.SignTypedData(chain.SpendPermissionTypedData(8453, testManager, cp), key)
	if err != nil {
		t.Fatal(err)
	}
	return sig
}

func (e subEnv) create(planID, customer, sig string, p subscription.Permission) (int, map[string]any) {
	e.t.Helper()
	pd, _ := json.Marshal(p)
	rec := e.do(req{method: http.MethodPost, path: "/api/subscriptions/create",
		body: fmt.Sprintf(`{"planId":%q,"customerWallet":%q,"permissionSignature":%q,"permissionData":%s}`, planID, customer, sig, pd)})
	return rec.Code, decode(e.t, rec)
}

// TestCreateSubscriptionRefusals: every check of DESIGN 8 is a 400 invalid_input naming it.
func TestCreateSubscriptionRefusals(t *testing.T) {
	t.Parallel()
	e := newSubEnv(t)
	customerKey, _ := crypto.GenerateKey()
	strangerKey, _ := crypto.GenerateKey()
	customer, merchant := walletOf(customerKey), walletOf(strangerKey)
	monthly := e.plan(merchant, 1000, "MONTHLY", true)
	inactive := e.plan(merchant, 1000, "MONTHLY", false)
	weekly := e.plan(merchant, 1000, "WEEKLY", true)
	expensive := e.plan(merchant, 1001, "MONTHLY", true)
	with := func(f func(*subscription.Permission)) subscription.Permission {
		p := permission(customer, monthly)
		f(&p)
		return p
	}
	for _, tc := range []struct {
		name, plan string
		p          subscription.Permission
		signer     *ecdsa.PrivateKey
		want       string
	}{
		{"other signer", monthly, permission(customer, monthly), strangerKey, "not by customerWallet"},
		{"wrong spender", monthly, with(func(p *subscription.Permission) { p.Spender = merchant }), customerKey, "spender"},
		{"wrong token", monthly, with(func(p *subscription.Permission) { p.Token = testManager }), customerKey, "USDC"},
		{"allowance below price", expensive, permission(customer, expensive), customerKey, "allowance"},
		{"wrong period", weekly, permission(customer, weekly), customerKey, "period"},
		{"not started", monthly, with(func(p *subscription.Permission) { p.Start = e.clk.Now().Unix() + 3600 }), customerKey, "outside"},
		{"ended", monthly, with(func(p *subscription.Permission) {
			p.Start, p.End = e.clk.Now().Unix()-7200, e.clk.Now().Unix()-1 // the server's clock, not the wall clock
		}), customerKey, "outside"},
		{"inactive plan", inactive, permission(customer, inactive), customerKey, "not active"},
		{"unknown plan", "plan_nope", permission(customer, "plan_nope"), customerKey, "unknown plan"},
		{"a megabyte of plan id", strings.Repeat("p", 1<<19), permission(customer, monthly), customerKey, "unknown plan: planId is longer"},
		{"malformed signature", monthly, permission(customer, monthly), nil, "permissionSignature"},
		{"signed for another plan", monthly, permission(customer, expensive), customerKey, "extraData " + subscription.PlanBinding(monthly)},
		{"signed for no plan", monthly, with(func(p *subscription.Permission) { p.ExtraData = "0x" }), customerKey, "extraData"},
		// The fault is the permission's field, not the signature (it named permissionSignature).
		{"no account", monthly, with(func(p *subscription.Permission) { p.Account = "" }), nil, `permissionData: invalid subscription input: account "" is not an address`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sig := "0x1234"
			if tc.signer != nil {
				sig = signPermission(t, tc.signer, tc.p)
			}
			code, body := e.create(tc.plan, customer, sig, tc.p)
			msg, _ := body["message"].(string)
			if code != http.StatusBadRequest || body["error"] != "invalid_input" || !strings.Contains(msg, tc.want) {
				t.Fatalf("%d %v, want 400 invalid_input naming %q", code, body, tc.want)
			}
		})
	}
	// An account that is not customerWallet, signed by that account.
	p := permission(merchant, monthly)
	if code, body := e.create(monthly, customer, signPermission(t, strangerKey, p), p); code != http.StatusBadRequest {
		t.Fatalf("account mismatch: %d %v", code, body)
	}
}

// TestSubscriptionLifecycle: create, status by each selector, cancel by another wallet and by
// the customer, and the plan's deactivation leaving the subscription alone.
func TestSubscriptionLifecycle(t *testing.T) {
	t.Parallel()
	e := newSubEnv(t)
	customerKey, _ := crypto.GenerateKey()
	merchantKey, _ := crypto.GenerateKey()
	customer, merchant := walletOf(customerKey), walletOf(merchantKey)
	planID := e.plan(merchant, 999, "MONTHLY", true)
	p := permission(crypto.PubkeyToAddress(customerKey.PublicKey).Hex(), planID) // checksummed: compared case-insensitively
	sig := signPermission(t, customerKey, p)
	code, body := e.create(planID, customer, sig, p)
	sub, _ := body["subscription"].(map[string]any)
	if code != http.StatusCreated || body["success"] != true || sub["status"] != "active" {
		t.Fatalf("create: %d %v", code, body)
	}
	id, _ := sub["subscriptionId"].(string)
	if next, _ := sub["nextChargeAt"].(float64); int64(next) != e.clk.Now().UnixMilli() {
		t.Fatalf("nextChargeAt %v is not now", sub["nextChargeAt"])
	}
	if code, body := e.create(planID, customer, sig, p); code != http.StatusConflict {
		t.Fatalf("the same permission again: %d %v", code, body)
	}

	status := func(query string, cookies []*http.Cookie) (int, map[string]any) {
		rec := e.do(req{method: http.MethodGet, path: "/api/subscriptions/status?" + query, cookies: cookies})
		return rec.Code, decode(t, rec)
	}
	code, body = status("subscriptionId="+id, nil)
	sub, _ = body["subscription"].(map[string]any)
	if code != http.StatusOK || sub["planId"] != planID || sub["customerWallet"] != customer || sub["merchantWallet"] != merchant ||
		sub["priceUsd"] != 9.99 || sub["period"] != "MONTHLY" || sub["charges"] != 0.0 || sub["lastChargeAt"] != nil || sub["status"] != "active" {
		t.Fatalf("status: %d %v", code, body)
	}
	for _, q := range []string{"", "subscriptionId=" + id + "&customer=" + customer, "customer=nope"} {
		if code, _ := status(q, nil); code != http.StatusBadRequest {
			t.Errorf("status?%s: %d, want 400", q, code)
		}
	}
	if code, _ := status("subscriptionId=sub_nope", nil); code != http.StatusNotFound {
		t.Errorf("unknown subscription: %d", code)
	}
	if code, _ := status("customer="+customer, nil); code != http.StatusUnauthorized {
		t.Errorf("customer list without a session: %d", code)
	}
	customerCookies, customerCSRF := e.login(customerKey)
	merchantCookies, merchantCSRF := e.login(merchantKey)
	if code, _ := status("customer="+customer, merchantCookies); code != http.StatusForbidden {
		t.Errorf("customer list with another wallet's session: %d", code)
	}
	// Read at once after the 201 (DESIGN 9, read-your-writes): the create waited for the projection.
	listed := func(query string, cookies []*http.Cookie) []any {
		code, body := status(query, cookies)
		if code != http.StatusOK {
			t.Fatalf("status?%s: %d %v", query, code, body)
		}
		subs, _ := body["subscriptions"].([]any)
		return subs
	}
	if subs := listed("customer="+customer, customerCookies); len(subs) != 1 || subs[0].(map[string]any)["subscriptionId"] != id {
		t.Fatalf("customer list: %v", subs)
	}
	if subs := listed("merchant="+merchant, merchantCookies); len(subs) != 1 {
		t.Fatalf("merchant list: %v", subs)
	}

	// A deactivated plan keeps its subscription and refuses new ones.
	off := false
	if _, err := e.plans.Update(context.Background(), planID, merchant, readmodels.PlanPatch{Active: &off}, time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, body := status("subscriptionId="+id, nil); body["subscription"].(map[string]any)["status"] != "active" {
		t.Fatalf("after deactivation: %v", body)
	}

	cancel := func(cookies []*http.Cookie, csrf, wallet string) (int, map[string]any) {
		rec := e.do(req{method: http.MethodPost, path: "/api/subscriptions/cancel", cookies: cookies, header: map[string]string{CSRFHeader: csrf},
			body: fmt.Sprintf(`{"subscriptionId":%q,"wallet":%q}`, id, wallet)})
		return rec.Code, decode(t, rec)
	}
	if code, body := cancel(merchantCookies, merchantCSRF, merchant); code != http.StatusForbidden {
		t.Fatalf("cancel by the merchant: %d %v", code, body)
	}
	if code, body := cancel(merchantCookies, merchantCSRF, customer); code != http.StatusForbidden {
		t.Fatalf("cancel naming the customer with the merchant's session: %d %v", code, body)
	}
	code, body = cancel(customerCookies, customerCSRF, customer)
	if sub, _ := body["subscription"].(map[string]any); code != http.StatusOK || body["success"] != true || sub["status"] != "cancelled" {
		t.Fatalf("cancel by the customer: %d %v", code, body)
	}
	if code, _ := cancel(customerCookies, customerCSRF, customer); code != http.StatusConflict {
		t.Fatalf("second cancel: %d", code)
	}
	if _, body := status("subscriptionId="+id, nil); body["subscription"].(map[string]any)["status"] != "cancelled" {
		t.Fatalf("after cancel: %v", body)
	}
	for _, l := range []struct {
		query   string
		cookies []*http.Cookie
	}{{"customer=" + customer, customerCookies}, {"merchant=" + merchant, merchantCookies}} {
		if subs := listed(l.query, l.cookies); len(subs) != 1 || subs[0].(map[string]any)["status"] != "cancelled" {
			t.Fatalf("%s list at once after cancel: %v", l.query, subs)
		}
	}
}

// TestSubscriptionsNotConfigured: without the chain configuration creation answers 503.
func TestSubscriptionsNotConfigured(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	rec := e.do(req{method: http.MethodPost, path: "/api/subscriptions/create",
		body: `{"planId":"p","customerWallet":"0x2222222222222222222222222222222222222222","permissionSignature":"0x00","permissionData":{}}`})
	if rec.Code != http.StatusServiceUnavailable {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
}

// A subscription whose permission has ended reads "ended", by id and in the lists: it is never
// charged again (stop 60: it kept reading active, or past_due, for ever).
func TestSubscriptionWhosePermissionEndedReadsEnded(t *testing.T) {
	t.Parallel()
	e := newSubEnv(t)
	customerKey, _ := crypto.GenerateKey()
	merchantKey, _ := crypto.GenerateKey()
	customer, merchant := walletOf(customerKey), walletOf(merchantKey)
	planID := e.plan(merchant, 999, "MONTHLY", true)
	p := permission(customer, planID)
	code, body := e.create(planID, customer, signPermission(t, customerKey, p), p)
	if code != http.StatusCreated {
		t.Fatalf("create: %d %v", code, body)
	}
	id := body["subscription"].(map[string]any)["subscriptionId"].(string)
	statusOf := func() (byID, listed any) {
		rec := e.do(req{method: http.MethodGet, path: "/api/subscriptions/status?subscriptionId=" + id})
		byID = decode(t, rec)["subscription"].(map[string]any)["status"]
		cookies, _ := e.login(customerKey)
		rec = e.do(req{method: http.MethodGet, path: "/api/subscriptions/status?customer=" + customer, cookies: cookies})
		return byID, decode(t, rec)["subscriptions"].([]any)[0].(map[string]any)["status"]
	}
	if byID, listed := statusOf(); byID != "active" || listed != "active" {
		t.Fatalf("before the permission's end: %v, %v", byID, listed)
	}
	e.clk.Advance(time.Unix(p.End, 0).Sub(e.clk.Now()) + time.Second)
	if byID, listed := statusOf(); byID != "ended" || listed != "ended" {
		t.Fatalf("after the permission's end: by id %v, listed %v; want ended", byID, listed)
	}
}
