package transport

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/chain/contracts"
	"github.com/payledger/payledger/cmd/payledger/app"
	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/subscription"
	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/projections"
	"github.com/payledger/payledger/readmodels"
	"github.com/payledger/payledger/settlement"
	"github.com/payledger/payledger/settlement/pgstore"
	"github.com/payledger/payledger/webhooks"
)

// TestChargeRoutesAuth: both charging routes need x-cron-secret (missing or wrong: 401); without
// a charger they answer 503 subscriptions_not_configured; a body without subscriptionId is 400.
func TestChargeRoutesAuth(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	for _, path := range []string{"/api/subscriptions/charge", "/api/cron/charge-subscriptions"} {
		body := `{"subscriptionId":"sub_x"}`
		if path == "/api/cron/charge-subscriptions" {
			body = ""
		}
		for _, h := range []map[string]string{nil, {"x-cron-secret": "wrong"}} {
			rec := e.do(req{method: http.MethodPost, path: path, body: body, header: h})
			if rec.Code != http.StatusUnauthorized || decode(t, rec)["error"] != "unauthorized" {
				t.Fatalf("%s with %v: %d %s", path, h, rec.Code, rec.Body)
			}
		}
		rec := e.do(req{method: http.MethodPost, path: path, body: body, header: map[string]string{"x-cron-secret": testCronSecret}})
		if rec.Code != http.StatusServiceUnavailable || decode(t, rec)["error"] != "subscriptions_not_configured" {
			t.Fatalf("%s unconfigured: %d %s", path, rec.Code, rec.Body)
		}
	}
	rec := e.do(req{method: http.MethodPost, path: "/api/subscriptions/charge", body: `{}`, header: map[string]string{"x-cron-secret": testCronSecret}})
	if rec.Code != http.StatusBadRequest {
		t.Fatalf("no subscriptionId: %d %s", rec.Code, rec.Body)
	}
}

// late lets a test give the charger its database after the env made it.
type late struct {
	settlement.ChargeLedger
	due   *pgstore.Subscriptions
	hooks *readmodels.SubscriptionWebhooks
}

func (l *late) Queue(ctx context.Context, event, key, id, merchant string, payload map[string]any) error {
	return l.hooks.Queue(ctx, event, key, id, merchant, payload)
}

func (l *late) DueSubscriptions(ctx context.Context, at time.Time, after string, limit int) ([]string, error) {
	return l.due.DueSubscriptions(ctx, at, after, limit)
}

// TestCronChargeSubscriptions: on the development chain with the real manager, the cron charges
// the due subscription and records the failure of the one whose customer cannot pay; the
// response's figures; the charge is in the billing balance; the charge route then answers 409.
func TestCronChargeSubscriptions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dev, rpc := dialDevChain(t, 300*time.Millisecond)
	op, err := dev.ChargeOperator(rpc)
	if err != nil {
		t.Fatal(err)
	}
	usdc, _ := dev.Token("USDC")
	db := &late{}
	var store *postgres.Store
	e := newAppEnv(t, func(c *app.Config) {
		store = c.Store.(*postgres.Store)
		h := settlement.NewChargeSubscriptionsHandler(c.Store, op, db, db, commands.NewSplits(c.Store), time.Now)
		h.Poll = 50 * time.Millisecond
		h.Notify = db
		c.Subscriptions = app.Subscriptions{Signer: chain.SpendPermissions{ChainID: chain.DevChainID, Manager: dev.SpendPermissionManager.Hex()},
			Operator: op.Sender(), USDC: op.USDC()}
		c.Chain.Charger = h
	}, nil, nil)
	db.ChargeLedger, db.due, db.hooks = pgstore.NewSubscriptionCharges(e.pool), pgstore.NewSubscriptions(e.pool), readmodels.NewSubscriptionWebhooks(e.pool)
	runner, err := projections.NewRunner(e.pool, store, projections.Subscriptions{}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); _ = runner.Run(rctx) }()
	t.Cleanup(func() { cancel(); <-done })

	// The merchant's split, deployed by the operator; its plans.
	m := e.merchant(false)
	splitOp, err := chain.NewOperator(dev.Operator.KeyHex(), chain.DevChainID, rpc.Backend(), dev.Tokens)
	if err != nil {
		t.Fatal(err)
	}
	deploy := settlement.NewDeploySplitHandler(commands.NewConfigureSplitHandler(store, testPlatform, time.Now), splitOp,
		settlement.NewOperatorSender(splitOp, pgstore.NewOperatorTransactions(e.pool)))
	if _, err := deploy.Handle(ctx, commands.ConfigureMerchantSplit{Merchant: m.wallet}); err != nil {
		t.Fatal(err)
	}
	// Its shop's webhook URL, and a receipt created with its key (the key that signs webhooks).
	var mu sync.Mutex
	var hooks []*http.Request
	var bodies [][]byte
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		hooks, bodies = append(hooks, r), append(bodies, b)
		mu.Unlock()
	}))
	t.Cleanup(recv.Close)
	if rec := e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/shop/config", `{"webhookUrl":"`+recv.URL+`"}`); rec.Code != http.StatusOK {
		t.Fatalf("shop config: %d %s", rec.Code, rec.Body)
	}
	if rec := e.dev(m, http.MethodPost, "/api/receipts", `{"lineItems":[{"label":"a","priceUsd":1}],"totalUsd":1}`); rec.Code != http.StatusCreated {
		t.Fatalf("receipt: %d %s", rec.Code, rec.Body)
	}
	plans := readmodels.NewPlans(e.pool)
	plan := func(price money.Cents) string {
		p, err := plans.Create(ctx, readmodels.Plan{ID: "plan_" + newID(), Wallet: m.wallet, Name: "Pro", Price: price, Period: "MONTHLY"}, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		return p.ID
	}
	// The customer's wallet lets the manager move its USDC.
	customer := dev.Accounts[0]
	tok, _ := contracts.NewTestToken(usdc.Address, rpc.Backend())
	opts, _ := bind.NewKeyedTransactorWithChainID(customer.Key, big.NewInt(chain.DevChainID))
	tx, err := tok.Approve(opts, dev.SpendPermissionManager, abi.MaxUint256)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bind.WaitMined(ctx, rpc.Backend(), tx); err != nil {
		t.Fatal(err)
	}
	subscribe := func(planID string, price money.Cents, salt string) string {
		now := time.Now().Unix()
		p := subscription.Permission{Account: strings.ToLower(customer.Address.Hex()), Spender: op.Sender(), Token: op.USDC(),
			Allowance: subscription.PriceUnits(price).String(), Period: 30 * 86400, Start: now - 60, End: now + 365*86400, Salt: salt, ExtraData: subscription.PlanBinding(planID)}
		cp, _ := chain.SpendPermissionContract(p)
		sig, err := chain.SignTypedData(chain.SpendPermissionTypedData(chain.DevChainID, dev.SpendPermissionManager.Hex(), cp), customer.Key)
		if err != nil {
			t.Fatal(err)
		}
		pd, _ := json.Marshal(p)
		rec := e.do(req{method: http.MethodPost, path: "/api/subscriptions/create", body: fmt.Sprintf(`{"planId":%q,"customerWallet":%q,"permissionSignature":%q,"permissionData":%s}`,
			planID, p.Account, sig, pd)})
		if rec.Code != http.StatusCreated {
			t.Fatalf("create: %d %s", rec.Code, rec.Body)
		}
		return decode(t, rec)["subscription"].(map[string]any)["subscriptionId"].(string)
	}
	ok := subscribe(plan(999), 999, "1")
	tooDear := subscribe(plan(50_000_000), 50_000_000, "2") // 500,000 USDC: more than the customer has
	for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
		due, err := db.DueSubscriptions(ctx, time.Now(), "", 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(due) == 2 {
			break
		}
		if time.Since(start) > 10*time.Second {
			t.Fatalf("due: %v", due)
		}
	}

	cron := map[string]string{"x-cron-secret": testCronSecret}
	rec := e.do(req{method: http.MethodPost, path: "/api/cron/charge-subscriptions", header: cron})
	if rec.Code != http.StatusOK {
		t.Fatalf("cron: %d %s", rec.Code, rec.Body)
	}
	body := decode(t, rec)
	if body["success"] != true || body["processed"] != 2.0 || body["succeeded"] != 1.0 || body["failed"] != 1.0 {
		t.Fatalf("cron body: %s", rec.Body)
	}
	if _, isNumber := body["durationMs"].(float64); !isNumber {
		t.Fatalf("durationMs: %v", body["durationMs"])
	}
	byID := map[string]map[string]any{}
	for _, r := range body["results"].([]any) {
		byID[r.(map[string]any)["subscriptionId"].(string)] = r.(map[string]any)
	}
	if r := byID[ok]; r["status"] != "charged" || r["amountUnits"] != "9990000" || len(r["transactionHashes"].([]any)) != 3 || r["periodIndex"] != 0.0 {
		t.Fatalf("charged result: %v", r)
	}
	if r := byID[tooDear]; r["status"] != "failed" || r["attempt"] != 1.0 || !strings.Contains(r["reason"].(string), "insufficient") {
		t.Fatalf("failed result: %v", r)
	}
	// The charge is a billing record: one charge of 9.99 USD, 0.05 platform fee (0.5%, half-up).
	e.clk.Advance(time.Since(e.clk.Now()) + time.Second) // the test clock was set when the env was made
	bal := subscriptionBillingOf(t, e, m, 1)
	for _, k := range []string{"period", "allTime"} {
		subs := bal[k].(map[string]any)
		if subs["charges"] != 1.0 || subs["volume"] != 9.99 || subs["platformFees"] != 0.05 || subs["currency"] != "USD" {
			t.Fatalf("billing %s: %v", k, subs)
		}
	}
	// The billing records are a projection of SubscriptionCharged: rebuilt, the same figures.
	rebuildSubscriptionsAndCompare(t, e, m, bal)
	// Charged this period: the charge route refuses, nothing is sent.
	rec = e.do(req{method: http.MethodPost, path: "/api/subscriptions/charge", body: `{"subscriptionId":"` + ok + `"}`, header: cron})
	if rec.Code != http.StatusConflict {
		t.Fatalf("charge again: %d %s", rec.Code, rec.Body)
	}
	// The failing one, charged by the route: the second attempt.
	rec = e.do(req{method: http.MethodPost, path: "/api/subscriptions/charge", body: `{"subscriptionId":"` + tooDear + `"}`, header: cron})
	charge, _ := decode(t, rec)["charge"].(map[string]any)
	if rec.Code != http.StatusOK || charge["status"] != "failed" || charge["attempt"] != 2.0 {
		t.Fatalf("charge route: %d %s", rec.Code, rec.Body)
	}
	rec = e.do(req{method: http.MethodPost, path: "/api/subscriptions/charge", body: `{"subscriptionId":"sub_unknown"}`, header: cron})
	if rec.Code != http.StatusNotFound {
		t.Fatalf("unknown subscription: %d %s", rec.Code, rec.Body)
	}

	// The webhooks: one subscription.charged, two subscription.charge_failed, signed with the
	// merchant's key like receipt webhooks; sending again sends nothing more.
	sender := &webhooks.SubscriptionSender{Outbox: readmodels.NewSubscriptionWebhooks(e.pool), Keys: e.webhookKeys, Via: e.dispatcher, Log: zerolog.Nop()}
	if n, err := sender.SendDue(ctx); err != nil || n != 3 {
		t.Fatalf("sent %d: %v", n, err)
	}
	if n, _ := sender.SendDue(ctx); n != 0 {
		t.Fatalf("sent %d again", n)
	}
	mu.Lock()
	defer mu.Unlock()
	events := map[string]int{}
	for i, r := range hooks {
		if r.Header.Get("X-Service-Signature") != webhooks.SignBody(m.key, bodies[i]) {
			t.Fatalf("signature %q does not match the body", r.Header.Get("X-Service-Signature"))
		}
		var p map[string]any
		if err := json.Unmarshal(bodies[i], &p); err != nil {
			t.Fatal(err)
		}
		events[p["event"].(string)]++
		if r.Header.Get("X-Service-Event") != p["event"] || r.Header.Get("X-Service-Idempotency-Key") != p["idempotencyKey"] {
			t.Fatalf("headers %v, payload %v", r.Header, p)
		}
		switch p["event"] {
		case "subscription.charged":
			if p["subscriptionId"] != ok || p["amountUnits"] != "9990000" || p["amountUsd"] != 9.99 || len(p["transactionHashes"].([]any)) != 3 {
				t.Fatalf("charged payload: %v", p)
			}
		case "subscription.charge_failed":
			if p["subscriptionId"] != tooDear || p["reason"] == "" || p["attempt"] == nil {
				t.Fatalf("failed payload: %v", p)
			}
		}
	}
	if events["subscription.charged"] != 1 || events["subscription.charge_failed"] != 2 {
		t.Fatalf("events %v", events)
	}
}
