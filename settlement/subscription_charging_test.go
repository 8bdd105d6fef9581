package settlement_test

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/chain/contracts"
	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/subscription"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/migrations/pgtest"
	"github.com/payledger/payledger/projections"
	"github.com/payledger/payledger/readmodels"
	"github.com/payledger/payledger/settlement"
	"github.com/payledger/payledger/settlement/pgstore"
)

// chargeEnv is the development chain with the real spend-permission manager, a fresh database
// with the subscriptions projection running, a merchant with a deployed 9,950/50 split and a plan.
type chargeEnv struct {
	tb       testing.TB
	ctx      context.Context
	pool     *pgxpool.Pool
	store    *postgres.Store
	dev      *chain.DevChain
	rpc      *chain.RPC
	op       *chain.ChargeOperator
	merchant string
	platform string
	split    string
	plans    fakePlans
	approved map[common.Address]bool
	salt     int
	mu       sync.Mutex
	// stopProjector stops the subscriptions projector startProjector started and waits for it.
	stopProjector func()
}

// startProjector runs the subscriptions projector until stopProjector or the env's end.
func (e *chargeEnv) startProjector() {
	e.tb.Helper()
	runner, err := projections.NewRunner(e.pool, e.store, projections.Subscriptions{}, zerolog.Nop())
	if err != nil {
		e.tb.Fatal(err)
	}
	ctx, cancel := context.WithCancel(e.ctx)
	done := make(chan struct{})
	go func() { defer close(done); _ = runner.Run(ctx) }()
	e.stopProjector = func() { cancel(); <-done }
}

type fakePlans map[string]commands.SubscriptionPlan

func (f fakePlans) SubscriptionPlan(_ context.Context, id string) (commands.SubscriptionPlan, bool, error) {
	p, ok := f[id]
	return p, ok, nil
}

func newChargeEnv(tb testing.TB, accounts int) *chargeEnv {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pool := pgtest.Pool(tb)
	store := postgres.New(pool)
	e := &chargeEnv{tb: tb, ctx: ctx, pool: pool, store: store}
	e.startProjector()
	dev, rpc := startDevChain(tb, ctx, chain.DevChainOptions{BlockInterval: 300 * time.Millisecond, Accounts: accounts})
	tb.Cleanup(func() { cancel(); e.stopProjector() }) // before the chain closes
	op, err := dev.ChargeOperator(rpc)
	if err != nil {
		tb.Fatal(err)
	}
	e.dev, e.rpc, e.op, e.plans, e.approved = dev, rpc, op, fakePlans{}, map[common.Address]bool{}
	e.merchant, e.platform = newWallet(tb), newWallet(tb)
	// The merchant's default split deployed by the operator through the command.
	splitOp, err := chain.NewOperator(dev.Operator.KeyHex(), chain.DevChainID, rpc.Backend(), dev.Tokens)
	if err != nil {
		tb.Fatal(err)
	}
	sender := settlement.NewOperatorSender(splitOp, pgstore.NewOperatorTransactions(pool))
	deploy := settlement.NewDeploySplitHandler(commands.NewConfigureSplitHandler(store, e.platform, time.Now), splitOp, sender)
	res, err := deploy.Handle(ctx, commands.ConfigureMerchantSplit{Merchant: e.merchant})
	if err != nil {
		tb.Fatalf("deploy split: %v", err)
	}
	e.split = res.State.Address
	e.plans["plan_monthly"] = commands.SubscriptionPlan{ID: "plan_monthly", Merchant: e.merchant, Name: "Monthly", Price: 999, Period: "MONTHLY", Active: true}
	e.plans["plan_huge"] = commands.SubscriptionPlan{ID: "plan_huge", Merchant: e.merchant, Name: "Too dear", Price: money.Cents(50_000_000), Period: "MONTHLY", Active: true}
	return e
}

// approveManager lets the manager move the customer's USDC (a smart wallet does this itself).
func (e *chargeEnv) approveManager(customer chain.DevAccount) {
	e.tb.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.approved[customer.Address] {
		return
	}
	usdc, _ := e.dev.Token("USDC")
	tok, err := contracts.NewTestToken(usdc.Address, e.rpc.Backend())
	if err != nil {
		e.tb.Fatal(err)
	}
	opts, _ := bind.NewKeyedTransactorWithChainID(customer.Key, big.NewInt(chain.DevChainID))
	opts.Context = e.ctx
	tx, err := tok.Approve(opts, e.dev.SpendPermissionManager, abi.MaxUint256)
	if err != nil {
		e.tb.Fatal(err)
	}
	if _, err := bind.WaitMined(e.ctx, e.rpc.Backend(), tx); err != nil {
		e.tb.Fatal(err)
	}
	e.approved[customer.Address] = true
}

// subscribe creates a subscription of customer to plan with a freshly signed permission.
func (e *chargeEnv) subscribe(customer chain.DevAccount, plan string) string {
	e.tb.Helper()
	e.approveManager(customer)
	res, err := e.creator().Handle(e.ctx, e.createCmd(customer, plan))
	if err != nil {
		e.tb.Fatalf("create subscription: %v", err)
	}
	return res.State.ID
}

// createCmd is customer's creation of a subscription to plan with a freshly signed permission.
func (e *chargeEnv) createCmd(customer chain.DevAccount, plan string) commands.CreateSubscription {
	e.tb.Helper()
	e.mu.Lock()
	e.salt++
	salt := e.salt
	e.mu.Unlock()
	usdc, _ := e.dev.Token("USDC")
	price := subscription.PriceUnits(e.plans[plan].Price)
	now := time.Now().Unix()
	p := subscription.Permission{Account: customer.Address.Hex(), Spender: e.dev.Operator.Address.Hex(), Token: usdc.Address.Hex(),
		Allowance: price.String(), Period: 30 * 86400, Start: now - 3600, End: now + 365*86400, Salt: fmt.Sprint(salt), ExtraData: subscription.PlanBinding(plan)}
	cp, err := chain.SpendPermissionContract(p)
	if err != nil {
		e.tb.Fatal(err)
	}
	sig, err := chain.SignTypedData(chain.SpendPermissionTypedData(chain.DevChainID, e.dev.SpendPermissionManager.Hex(), cp), customer.Key)
	if err != nil {
		e.tb.Fatal(err)
	}
	return commands.CreateSubscription{PlanID: plan, Customer: customer.Address.Hex(), Permission: p, Signature: sig}
}

// creator is the creation use case on the development chain (no bounds: serve sets them).
func (e *chargeEnv) creator() *commands.CreateSubscriptionHandler {
	usdc, _ := e.dev.Token("USDC")
	return commands.NewCreateSubscriptionHandler(e.store, e.plans, chain.SpendPermissions{ChainID: chain.DevChainID, Manager: e.dev.SpendPermissionManager.Hex()},
		strings.ToLower(e.dev.Operator.Address.Hex()), strings.ToLower(usdc.Address.Hex()), time.Now)
}

// listed waits until the read model lists ids as due.
func (e *chargeEnv) listed(ids ...string) {
	e.tb.Helper()
	for start := time.Now(); time.Since(start) < 15*time.Second; time.Sleep(20 * time.Millisecond) {
		due, err := pgstore.NewSubscriptions(e.pool).DueSubscriptions(e.ctx, time.Now(), "", 100_000)
		if err != nil {
			e.tb.Fatal(err)
		}
		got := map[string]bool{}
		for _, id := range due {
			got[id] = true
		}
		all := true
		for _, id := range ids {
			all = all && got[id]
		}
		if all {
			return
		}
	}
	e.tb.Fatalf("subscriptions %v not listed due", ids)
}

func (e *chargeEnv) handler(c settlement.ChargeChain) *settlement.ChargeSubscriptionsHandler {
	if c == nil {
		c = e.op
	}
	h := settlement.NewChargeSubscriptionsHandler(e.store, c, pgstore.NewSubscriptionCharges(e.pool), pgstore.NewSubscriptions(e.pool),
		commands.NewSplits(e.store), time.Now)
	h.Poll = 50 * time.Millisecond
	h.Await = 30 * time.Second
	return h
}

func (e *chargeEnv) balance(wallet string) *big.Int {
	e.tb.Helper()
	return usdcBalance(e.tb, e.ctx, e.dev, e.rpc, wallet)
}

func (e *chargeEnv) state(id string) subscription.State {
	e.tb.Helper()
	st, err := commands.LoadSubscription(e.ctx, e.store, id)
	if err != nil {
		e.tb.Fatal(err)
	}
	return st
}

func (e *chargeEnv) count(q string, args ...any) int {
	e.tb.Helper()
	var n int
	if err := e.pool.QueryRow(e.ctx, q, args...).Scan(&n); err != nil {
		e.tb.Fatal(err)
	}
	return n
}

func diff(after, before *big.Int) *big.Int { return new(big.Int).Sub(after, before) }

// A charge moves exactly the price in USDC base units from the customer to the split and, with
// the release, on to the payees (9,950 and 50 basis points); a second charge in the same period
// is refused before anything is sent and moves nothing; the charge is a billing record.
func TestChargeSubscriptionMovesThePrice(t *testing.T) {
	t.Parallel()
	e := newChargeEnv(t, 1)
	customer := e.dev.Accounts[0]
	id := e.subscribe(customer, "plan_monthly")
	h := e.handler(nil)
	custBefore, merchBefore, platBefore := e.balance(customer.Address.Hex()), e.balance(e.merchant), e.balance(e.platform)
	res, err := h.Handle(e.ctx, settlement.ChargeSubscription{ID: id})
	if err != nil || res.Status != settlement.ResultCharged {
		t.Fatalf("charge: %+v %v", res, err)
	}
	price := big.NewInt(9_990_000)
	if d := diff(custBefore, e.balance(customer.Address.Hex())); d.Cmp(price) != 0 {
		t.Fatalf("customer paid %s, want %s", d, price)
	}
	if d := diff(e.balance(e.merchant), merchBefore); d.Cmp(big.NewInt(9_990_000*9950/10000)) != 0 {
		t.Fatalf("merchant received %s", d)
	}
	if d := diff(e.balance(e.platform), platBefore); d.Cmp(big.NewInt(9_990_000*50/10000)) != 0 {
		t.Fatalf("platform received %s", d)
	}
	if e.balance(e.split).Sign() != 0 {
		t.Fatalf("split keeps %s", e.balance(e.split))
	}
	st := e.state(id)
	if st.Charges != 1 || st.Status != subscription.StatusActive || len(res.TransactionHashes) != 3 || res.AmountUnits != "9990000" {
		t.Fatalf("after the charge: %+v, result %+v", st, res)
	}
	if st.NextChargeAt != st.CreatedAt+30*86400*1000 {
		t.Fatalf("nextChargeAt %d, want created + 30 d", st.NextChargeAt)
	}
	// Same period again: not due, nothing sent.
	custMid := e.balance(customer.Address.Hex())
	if _, err := h.Handle(e.ctx, settlement.ChargeSubscription{ID: id}); !errors.Is(err, subscription.ErrNotDue) {
		t.Fatalf("second charge in the period: %v, want ErrNotDue", err)
	}
	run, err := h.ChargeDue(e.ctx, eventstore.Metadata{})
	if err != nil || run.Processed != 0 {
		t.Fatalf("cron after the charge: %+v %v", run, err)
	}
	if custMid.Cmp(e.balance(customer.Address.Hex())) != 0 || e.count(`SELECT count(*) FROM operator_transactions WHERE kind = 'spend'`) != 1 {
		t.Fatal("the second charge moved funds")
	}
	// The billing record is the subscriptions projection's, which follows the log.
	want := readmodels.ChargeTotals{Charges: 1, VolumeCents: 999, PlatformCents: 5}
	for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
		totals, err := readmodels.NewSubscriptions(e.pool).ChargeTotals(e.ctx, e.merchant, time.Unix(0, 0), time.Now().Add(time.Minute))
		if err == nil && totals == want {
			break
		}
		if err != nil || time.Since(start) > 10*time.Second {
			t.Fatalf("billing: %+v %v", totals, err)
		}
	}
}

// crashAfterSend is a chain whose receipt lookups fail once the second broadcast (the spends,
// after the approvals) is sent: the process "dies" after broadcasting the spend and before
// recording anything.
type crashAfterSend struct {
	settlement.ChargeChain
	broadcasts *int
}

func (c crashAfterSend) BroadcastAll(ctx context.Context, raws [][]byte) error {
	*c.broadcasts++
	return c.ChargeChain.BroadcastAll(ctx, raws)
}

func (c crashAfterSend) Outcomes(ctx context.Context, hashes []string) ([]*settlement.TxOutcome, error) {
	if *c.broadcasts >= 2 {
		return nil, errors.New("crash: the process died before recording the charge")
	}
	return c.ChargeChain.Outcomes(ctx, hashes)
}

// A crash after the spend is sent and before the event: the restarted process finds the spend on
// chain, sends the transfer and records the charge once; the customer is charged once.
func TestChargeSubscriptionCrashAfterSpend(t *testing.T) {
	t.Parallel()
	e := newChargeEnv(t, 1)
	customer := e.dev.Accounts[0]
	id := e.subscribe(customer, "plan_monthly")
	before := e.balance(customer.Address.Hex())
	crashed := e.handler(crashAfterSend{e.op, new(int)})
	if _, err := crashed.Handle(e.ctx, settlement.ChargeSubscription{ID: id}); err == nil {
		t.Fatal("the crashing charge succeeded")
	}
	if n := e.count(`SELECT count(*) FROM subscription_charges WHERE status = 'spending' AND spend_tx IS NOT NULL`); n != 1 {
		t.Fatalf("open charges after the crash: %d", n)
	}
	// Another process, before the lease runs out: the period is held, nothing is sent.
	if _, err := e.handler(nil).Handle(e.ctx, settlement.ChargeSubscription{ID: id}); !errors.Is(err, settlement.ErrChargeInProgress) {
		t.Fatalf("charge while held: %v", err)
	}
	restarted := e.handler(nil)
	restarted.Lease = 0 // the crashed process's lease is over
	res, err := restarted.Handle(e.ctx, settlement.ChargeSubscription{ID: id})
	if err != nil || res.Status != settlement.ResultCharged {
		t.Fatalf("recovery: %+v %v", res, err)
	}
	if d := diff(before, e.balance(customer.Address.Hex())); d.Cmp(big.NewInt(9_990_000)) != 0 {
		t.Fatalf("customer paid %s, want one price", d)
	}
	st := e.state(id)
	if st.Charges != 1 || e.count(`SELECT count(*) FROM operator_transactions WHERE kind = 'spend'`) != 1 {
		t.Fatalf("charges %d, spends %d", st.Charges, e.count(`SELECT count(*) FROM operator_transactions WHERE kind = 'spend'`))
	}
	if _, err := restarted.Handle(e.ctx, settlement.ChargeSubscription{ID: id}); !errors.Is(err, subscription.ErrNotDue) {
		t.Fatalf("after recovery: %v", err)
	}
}

// Two instances run the cron at once: each subscription is charged exactly once.
func TestChargeSubscriptionsTwoInstances(t *testing.T) {
	t.Parallel()
	e := newChargeEnv(t, 2)
	var ids []string
	for i := range 6 {
		ids = append(ids, e.subscribe(e.dev.Accounts[i%2], "plan_monthly"))
	}
	e.listed(ids...)
	before := new(big.Int).Add(e.balance(e.dev.Accounts[0].Address.Hex()), e.balance(e.dev.Accounts[1].Address.Hex()))
	a, b := e.handler(nil), e.handler(nil)
	var runs [2]settlement.ChargeRun
	var errs [2]error
	var wg sync.WaitGroup
	for i, h := range []*settlement.ChargeSubscriptionsHandler{a, b} {
		wg.Go(func() { runs[i], errs[i] = h.ChargeDue(e.ctx, eventstore.Metadata{}) })
	}
	wg.Wait()
	if errs[0] != nil || errs[1] != nil {
		t.Fatal(errs)
	}
	if runs[0].Succeeded+runs[1].Succeeded != len(ids) {
		t.Fatalf("succeeded %d + %d, want %d", runs[0].Succeeded, runs[1].Succeeded, len(ids))
	}
	for _, id := range ids {
		if st := e.state(id); st.Charges != 1 {
			t.Fatalf("%s charged %d times", id, st.Charges)
		}
	}
	after := new(big.Int).Add(e.balance(e.dev.Accounts[0].Address.Hex()), e.balance(e.dev.Accounts[1].Address.Hex()))
	if d := diff(before, after); d.Cmp(big.NewInt(int64(len(ids))*9_990_000)) != 0 {
		t.Fatalf("customers paid %s", d)
	}
}

// A customer whose balance does not cover the price: SubscriptionChargeFailed with the attempt,
// the third makes the subscription past_due; nothing is sent. Cancelled: no charge.
func TestChargeSubscriptionFailuresAndCancel(t *testing.T) {
	t.Parallel()
	e := newChargeEnv(t, 1)
	customer := e.dev.Accounts[0]
	id := e.subscribe(customer, "plan_huge")
	h := e.handler(nil)
	for attempt := 1; attempt <= 3; attempt++ {
		res, err := h.Handle(e.ctx, settlement.ChargeSubscription{ID: id})
		if err != nil || res.Status != settlement.ResultFailed || res.Attempt != attempt || !strings.Contains(res.Reason, "insufficient USDC balance") {
			t.Fatalf("attempt %d: %+v %v", attempt, res, err)
		}
	}
	st := e.state(id)
	if st.Status != subscription.StatusPastDue || st.ConsecutiveFailures != 3 || st.Charges != 0 {
		t.Fatalf("after three failures: %+v", st)
	}
	if n := e.count(`SELECT count(*) FROM operator_transactions`); n != 1 { // the split's deployment only
		t.Fatalf("%d operator transactions", n)
	}
	// Cancelled: no charge, by the route or the cron.
	other := e.subscribe(customer, "plan_monthly")
	if _, err := commands.NewCancelSubscriptionHandler(e.store, time.Now).Handle(e.ctx, commands.CancelSubscription{ID: other, By: customer.Address.Hex()}); err != nil {
		t.Fatal(err)
	}
	before := e.balance(customer.Address.Hex())
	if _, err := h.Handle(e.ctx, settlement.ChargeSubscription{ID: other}); !errors.Is(err, subscription.ErrCancelled) {
		t.Fatalf("charge after cancel: %v", err)
	}
	h.RetryAfter = 0
	run, err := h.ChargeDue(e.ctx, eventstore.Metadata{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range run.Results {
		if r.SubscriptionID == other {
			t.Fatalf("the cancelled subscription was charged: %+v", r)
		}
	}
	if before.Cmp(e.balance(customer.Address.Hex())) != 0 || e.state(other).Charges != 0 {
		t.Fatal("funds moved after cancel")
	}
}

// dropBroadcasts records but never sends, then "dies" before the receipts: the crash between the
// intent and the broadcast.
type dropBroadcasts struct{ settlement.ChargeChain }

func (dropBroadcasts) BroadcastAll(context.Context, [][]byte) error { return nil }
func (dropBroadcasts) Outcomes(context.Context, []string) ([]*settlement.TxOutcome, error) {
	return nil, errors.New("crash: the process died before broadcasting")
}

// A crash after the intent is recorded and before anything is broadcast (the approval, the first
// step of a first use): the restarted process sends the same signed bytes (no new signature, no
// second nonce), then the spend, and records the charge once; each step is signed once.
func TestChargeSubscriptionCrashBeforeBroadcast(t *testing.T) {
	t.Parallel()
	e := newChargeEnv(t, 1)
	customer := e.dev.Accounts[0]
	id := e.subscribe(customer, "plan_monthly")
	before := e.balance(customer.Address.Hex())
	if _, err := e.handler(dropBroadcasts{e.op}).Handle(e.ctx, settlement.ChargeSubscription{ID: id}); err == nil {
		t.Fatal("the crashing charge succeeded")
	}
	if e.balance(customer.Address.Hex()).Cmp(before) != 0 {
		t.Fatal("funds moved without a broadcast")
	}
	kinds := func() (int, int) {
		return e.count(`SELECT count(*) FROM operator_transactions WHERE kind = 'approve'`),
			e.count(`SELECT count(*) FROM operator_transactions WHERE kind = 'spend'`)
	}
	if a, s := kinds(); a != 1 || s != 0 {
		t.Fatalf("after the crash: %d approvals, %d spends signed, want 1 and 0", a, s)
	}
	restarted := e.handler(nil)
	restarted.Lease = 0
	res, err := restarted.Handle(e.ctx, settlement.ChargeSubscription{ID: id})
	if err != nil || res.Status != settlement.ResultCharged {
		t.Fatalf("recovery: %+v %v", res, err)
	}
	if d := diff(before, e.balance(customer.Address.Hex())); d.Cmp(big.NewInt(9_990_000)) != 0 {
		t.Fatalf("customer paid %s", d)
	}
	if a, s := kinds(); a != 1 || s != 1 {
		t.Fatalf("after the recovery: %d approvals, %d spends signed, want 1 each", a, s)
	}
	if st := e.state(id); st.Charges != 1 {
		t.Fatalf("charges %d", st.Charges)
	}
}

// lyingChecks says every spend would go through: the spend's gas estimate then reverts.
type lyingChecks struct{ settlement.ChargeChain }

func (l lyingChecks) CheckSpends(ctx context.Context, checks []settlement.SpendCheck) ([]settlement.SpendStatus, error) {
	out, err := l.ChargeChain.CheckSpends(ctx, checks)
	for i := range out {
		out[i].Refusal = ""
	}
	return out, err
}

// A spend whose gas estimate reverts (the check passed, the balance does not cover it): a failed
// attempt with the node's reason, nothing sent for the spend (no gas spent), and no transfer is
// ever sent (it would move other customers' funds from the operator).
func TestChargeSubscriptionRevertedSpend(t *testing.T) {
	t.Parallel()
	e := newChargeEnv(t, 1)
	id := e.subscribe(e.dev.Accounts[0], "plan_huge")
	res, err := e.handler(lyingChecks{e.op}).Handle(e.ctx, settlement.ChargeSubscription{ID: id})
	if err != nil || res.Status != settlement.ResultFailed || res.Attempt != 1 || !strings.Contains(res.Reason, "the spend would revert") {
		t.Fatalf("reverted spend: %+v %v", res, err)
	}
	if n := e.count(`SELECT count(*) FROM operator_transactions WHERE kind = 'spend'`); n != 0 {
		t.Fatalf("spends signed after a reverting estimate: %d", n)
	}
	if n := e.count(`SELECT count(*) FROM operator_transactions WHERE kind = 'transfer'`); n != 0 {
		t.Fatalf("%d transfers sent after a reverted spend", n)
	}
	if st := e.state(id); st.ConsecutiveFailures != 1 || st.Charges != 0 {
		t.Fatalf("state %+v", st)
	}
}

// nodeDown fails the checks, before anything is signed.
type nodeDown struct{ settlement.ChargeChain }

func (nodeDown) CheckSpends(context.Context, []settlement.SpendCheck) ([]settlement.SpendStatus, error) {
	return nil, errors.New("dial tcp: connection refused")
}

// The node down before anything is signed: the charge is an error (no failed attempt is
// recorded against the customer) and the period is free at once for the next run.
func TestChargeSubscriptionNodeDown(t *testing.T) {
	t.Parallel()
	e := newChargeEnv(t, 1)
	id := e.subscribe(e.dev.Accounts[0], "plan_monthly")
	if _, err := e.handler(nodeDown{e.op}).Handle(e.ctx, settlement.ChargeSubscription{ID: id}); err == nil {
		t.Fatal("charge with the node down succeeded")
	}
	if st := e.state(id); st.ConsecutiveFailures != 0 {
		t.Fatalf("a node outage counted as the customer's failure: %+v", st)
	}
	res, err := e.handler(nil).Handle(e.ctx, settlement.ChargeSubscription{ID: id})
	if err != nil || res.Status != settlement.ResultCharged {
		t.Fatalf("charge once the node is back: %+v %v", res, err)
	}
}

// The daily ticker charges only while its process leads; the first tick it leads runs the cron.
func TestChargeSubscriptionsTickerLeaderOnly(t *testing.T) {
	t.Parallel()
	e := newChargeEnv(t, 1)
	id := e.subscribe(e.dev.Accounts[0], "plan_monthly")
	e.listed(id)
	h := e.handler(nil)
	var leading atomic.Bool
	var asked atomic.Int32 // how often the ticker asked whether its process leads
	isLeader := func() bool { asked.Add(1); return leading.Load() }
	ctx, cancel := context.WithCancel(e.ctx)
	done := make(chan error, 1)
	go func() { done <- h.Run(ctx, isLeader, 24*time.Hour, 20*time.Millisecond) }()
	// The ticker asked, heard no, and came back for the next tick: the first tick passed without a cron.
	wait.Until(t, "the ticker to ask twice whether it leads", 30*time.Second, func() bool { return asked.Load() >= 2 })
	if st := e.state(id); st.Charges != 0 {
		t.Fatal("a standby instance charged")
	}
	leading.Store(true)
	for start := time.Now(); e.state(id).Charges == 0; time.Sleep(50 * time.Millisecond) {
		if time.Since(start) > 30*time.Second {
			t.Fatal("the leader did not charge")
		}
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Run returned %v", err)
	}
	if st := e.state(id); st.Charges != 1 {
		t.Fatalf("charged %d times", st.Charges)
	}
}

// The billing record's platform fee (the subscriptions projection) is charging's: 0.5%, half-up.
func TestChargeSubscriptionFeeMatchesBilling(t *testing.T) {
	t.Parallel()
	if projections.SubscriptionFeeBps != settlement.PlatformFeeBps {
		t.Fatalf("billing fee %d bps, charging %d bps", projections.SubscriptionFeeBps, settlement.PlatformFeeBps)
	}
	for cents, fee := range map[money.Cents]money.Cents{999: 5, 100: 1, 99: 0, 50_000_000: 250_000, 300: 2} {
		if got := projections.SubscriptionFeeCents(cents); got != fee {
			t.Fatalf("fee of %d cents: %d, want %d", cents, got, fee)
		}
	}
}
