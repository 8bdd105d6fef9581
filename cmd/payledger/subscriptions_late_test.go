package main

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/accounts/abi/bind"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/chain/contracts"
	"github.com/payledger/payledger/cmd/payledger/app/web"
	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/subscription"
	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/readmodels"
	"github.com/payledger/payledger/settlement"
)

// TestSubscriptionChargingComesOnWhenTheNodeAnswersLate: ETH_RPC_URL does not answer at serve's
// start. Subscription charging was set up only over a node that answered then, so it stayed off
// (the charging routes 503 subscriptions_not_configured, /healthz listing it off) until a restart,
// and the customers' charges waited for one. Now it is on from the start, a charge answers
// chain_unavailable while the node is down, and once the node answers the charging worker's dial
// connects it: the same service charges the subscription, without a restart.
func TestSubscriptionChargingComesOnWhenTheNodeAnswersLate(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dev, err := chain.StartDevChain(ctx, chain.DevChainOptions{BlockInterval: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	// The service is pointed at a port where nothing answers yet; the node "comes up" when a
	// proxy to the development chain starts listening there.
	port := freePort(t)
	cfg := testServiceConfig(t, map[string]string{"ETH_RPC_URL": fmt.Sprintf("http://127.0.0.1:%d", port),
		"CHAIN_ID": fmt.Sprint(chain.DevChainID), "CHAIN_TOKENS": chain.FormatTokens(dev.Tokens),
		"CHAIN_OPERATOR_KEY": dev.Operator.KeyHex(), "SPEND_PERMISSION_MANAGER": dev.SpendPermissionManager.Hex(),
		"DEPOSIT_FACTORY": dev.DepositFactory.Hex(), "PLATFORM_RECIPIENT": newWalletAddr(t)})
	svc := buildService(t, ctx, cfg, nil, nil) // the node did not answer at start
	if !capabilityOn(svc.Config, "subscription_charging") || svc.Processes.Charger == nil || svc.Processes.SubscriptionCharging == nil {
		t.Fatalf("subscription charging is off without the node at start: charger %v, worker %v", svc.Processes.Charger, svc.Processes.SubscriptionCharging)
	}
	charger := svc.Processes.Charger
	if _, err := charger.Handle(ctx, settlement.ChargeSubscription{ID: "sub_none"}); !errors.Is(err, settlement.ErrChainUnavailable) {
		t.Fatalf("a charge before the node answers: %v; want chain_unavailable", err)
	}
	var wg sync.WaitGroup
	defer func() { cancel(); wg.Wait() }()
	for _, w := range []interface{ Run(context.Context) error }{svc.Processes.SplitDistributor, svc.Processes.SubscriptionCharging} {
		wg.Go(func() { _ = w.Run(ctx) })
	}
	proxyChain(t, port, dev.URL)

	merchant, customer := newWalletAddr(t), dev.Accounts[0]
	deploySplitWhenUp(t, ctx, svc.Commands.ConfigureSplit, merchant)
	id := subscribeLate(t, ctx, svc, dev, merchant, customer)
	var res settlement.ChargeResult
	wait.Until(t, "the charge once the node answered", 60*time.Second, func() bool {
		res, err = charger.Handle(ctx, settlement.ChargeSubscription{ID: id})
		if err != nil && !errors.Is(err, settlement.ErrChainUnavailable) {
			t.Fatalf("charge after the node came up: %v", err)
		}
		return err == nil
	})
	if res.Status != settlement.ResultCharged {
		t.Fatalf("charge: %+v, want charged", res)
	}
	st, err := commands.LoadSubscription(ctx, svc.Config.Store, id)
	if err != nil || st.Charges != 1 {
		t.Fatalf("subscription after the charge: %+v, %v", st, err)
	}
}

func capabilityOn(c interface {
	CapabilitiesOff() []string
}, name string) bool {
	for _, off := range c.CapabilitiesOff() {
		if off == name {
			return false
		}
	}
	return true
}

// proxyChain starts answering on port as the node at target does.
func proxyChain(t *testing.T, port int, target string) {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: httputil.NewSingleHostReverseProxy(u), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
}

// deploySplitWhenUp deploys merchant's split once the split operator's dial connected it.
func deploySplitWhenUp(t *testing.T, ctx context.Context, deploy interface {
	Handle(context.Context, commands.ConfigureMerchantSplit) (commands.SplitResult, error)
}, merchant string) {
	t.Helper()
	wait.Until(t, "the merchant's split deployed", 60*time.Second, func() bool {
		_, err := deploy.Handle(ctx, commands.ConfigureMerchantSplit{Merchant: merchant})
		if err != nil && !errors.Is(err, settlement.ErrChainUnavailable) {
			t.Fatalf("deploy split: %v", err)
		}
		return err == nil
	})
}

// subscribeLate creates a monthly plan of merchant and subscribes customer to it through the
// service, the customer's wallet letting the manager move its USDC.
func subscribeLate(t *testing.T, ctx context.Context, svc *web.Service, dev *chain.DevChain, merchant string, customer chain.DevAccount) string {
	t.Helper()
	plan, err := readmodels.NewPlans(svc.Config.Pool).Create(ctx, readmodels.Plan{ID: "plan_late", Wallet: merchant, Name: "Monthly",
		Price: money.Cents(999), Period: string(subscription.Monthly)}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	rpc, err := chain.Dial(ctx, dev.URL, chain.DevChainID)
	if err != nil {
		t.Fatal(err)
	}
	defer rpc.Close()
	usdc, _ := dev.Token("USDC")
	tok, err := contracts.NewTestToken(usdc.Address, rpc.Backend())
	if err != nil {
		t.Fatal(err)
	}
	opts, _ := bind.NewKeyedTransactorWithChainID(customer.Key, big.NewInt(chain.DevChainID))
	opts.Context = ctx
	tx, err := tok.Approve(opts, dev.SpendPermissionManager, abi.MaxUint256)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bind.WaitMined(ctx, rpc.Backend(), tx); err != nil {
		t.Fatal(err)
	}
	now := time.Now().Unix()
	p := subscription.Permission{Account: customer.Address.Hex(), Spender: dev.Operator.Address.Hex(), Token: usdc.Address.Hex(),
		Allowance: subscription.PriceUnits(plan.Price).String(), Period: 30 * 86400, Start: now - 3600, End: now + 365*86400,
		Salt: "1", ExtraData: subscription.PlanBinding(plan.ID)}
	cp, err := chain.SpendPermissionContract(p)
	if err != nil {
		t.Fatal(err)
	}
	sig, err := chain.SignTypedData(chain.SpendPermissionTypedData(chain.DevChainID, dev.SpendPermissionManager.Hex(), cp), customer.Key)
	if err != nil {
		t.Fatal(err)
	}
	// Creation checks the permission on the charging node (stop 68), whose connection may come up
	// after the split operator's: a chain_unavailable answer is asked again.
	var id string
	wait.Until(t, "the subscription created", 60*time.Second, func() bool {
		res, err := svc.Commands.CreateSubscription.Handle(ctx, commands.CreateSubscription{PlanID: plan.ID, Customer: strings.ToLower(customer.Address.Hex()), Permission: p, Signature: sig})
		var r *commands.Refusal
		if errors.As(err, &r) && r.Code == "chain_unavailable" {
			return false
		}
		if err != nil {
			t.Fatalf("create subscription: %v", err)
		}
		id = res.State.ID
		return true
	})
	return id
}
