package app

import (
	"context"
	"time"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/readmodels"
	"github.com/payledger/payledger/settlement"
	"github.com/payledger/payledger/webhooks"
)

// Chain is what the settlement processes need of the chain. The zero value: no chain configured
// (ETH_RPC_URL unset): wallet payments stay pending, nothing is deployed, released or charged.
type Chain struct {
	// RPC is the node dialled at start (serve closes it); nil when it did not answer.
	RPC *chain.RPC
	// Dial dials the node until it answers or ctx ends (the caller closes what it returns);
	// waiting says what waits for it, in the logs. Nil: no chain configured.
	Dial          func(ctx context.Context, waiting string) (*chain.RPC, error)
	Tokens        []chain.Token
	Confirmations int
	// SplitChain is the chain split deployment checks and deploys on (nil: none, splitAddress
	// required); SplitOperator signs from CHAIN_OPERATOR_KEY (nil: nothing is deployed or released).
	SplitChain    settlement.SplitChain
	SplitOperator *settlement.OperatorSender
	// Transactions reads a submitted hash's transaction (nil: no chain; hints go unchecked).
	Transactions commands.ChainTransactions
	// Charger charges subscriptions (nil: not configured; the charging routes answer 503).
	Charger *settlement.ChargeSubscriptionsHandler
}

// Paces of the processes: the chain is read every verifyInterval (the development chain seals a
// block every 2 s), the verifier's work list synced every verifyRefresh; a release sent in one
// distribution pass is recorded in a later one, once mined; open onramp attempts older than
// reconcileMinAge are verified every reconcileInterval.
const (
	verifyInterval     = time.Second
	verifyRefresh      = 2 * time.Second
	distributeInterval = 2 * time.Second
	reconcileInterval  = 30 * time.Second
	reconcileMinAge    = 2 * time.Minute
)

// Processes are the settlement processes, each a worker; Charger is also what the charging routes
// call.
type Processes struct {
	OnrampReconciler     *settlement.OnrampReconciler
	WalletVerifier       Worker
	SplitDistributor     Worker
	SubscriptionCharging Worker
	DepositSweeper       Worker // moves paid receipts' deposits to their splits (sweeps.go)
	PaymentWindow        Worker // expires unpaid receipts at the end of their window (DESIGN 9)
	RefundVerifier       Worker // proves claimed refunds on chain (DESIGN 10; refunds.go)
	Charger              *settlement.ChargeSubscriptionsHandler
}

// workerFunc makes a function a Worker.
type workerFunc func(ctx context.Context) error

func (f workerFunc) Run(ctx context.Context) error { return f(ctx) }

func (a *Application) buildProcesses(d Deps, reconcile *commands.ReconcileOnrampHandler) {
	a.Processes = Processes{
		OnrampReconciler:     settlement.NewOnrampReconciler(logOutcomes(reconcile, noteReconcile), d.Dispatcher, reconcileInterval, reconcileMinAge, d.Log),
		WalletVerifier:       walletVerifier(d),
		SplitDistributor:     SplitDistributor(d),
		SubscriptionCharging: subscriptionCharging(d, a.Projections.Subscriptions),
		PaymentWindow:        paymentWindow(d),
		DepositSweeper:       depositSweeper(d),
		RefundVerifier:       refundVerifier(d),
		Charger:              d.Chain.Charger,
	}
}

// paymentWindow records the expiry of receipts whose payment window ended unpaid; every instance
// may run it: the stream's expected version records each expiry once.
func paymentWindow(d Deps) Worker {
	h := settlement.NewPaymentWindowHandler(d.Store, readmodels.NewReceipts(d.Pool),
		settlement.PaymentWindowConfig{Window: d.PaymentWindow, Monitor: d.PaymentMonitorWindow}, d.Now)
	return workerFunc(func(ctx context.Context) error { return h.Run(ctx, d.Log) })
}

// walletVerifier confirms wallet payments on chain: without a chain it does nothing (payments
// stay pending); with one, it dials until the node answers (unless it answered at start) and
// then runs the verifier. Every instance may run it: recording a verdict is idempotent.
func walletVerifier(d Deps) Worker {
	c := d.Chain
	return workerFunc(func(ctx context.Context) error {
		if c.Dial == nil {
			return nil
		}
		rpc := c.RPC
		if rpc == nil { // dialled here: closed here (the one dialled at start is serve's)
			var err error
			if rpc, err = c.Dial(ctx, "wallet payment verifications"); err != nil {
				return err
			}
			defer rpc.Close()
			d.Log.Info().Msg("chain connected")
		}
		v := settlement.NewVerifyWalletPaymentsHandler(d.Store, readmodels.NewReceipts(d.Pool), commands.NewSplits(d.Store),
			chain.NewPaymentWatcher(rpc, c.Tokens, c.Confirmations), time.Now)
		return v.Run(ctx, verifyInterval, verifyRefresh, d.Log)
	})
}

// SplitDistributor connects a node unreachable at start (the operator then runs over a
// chain.LateBackend) and releases the splits of paid receipts. Every instance may run it: a
// receipt is covered once per payee and nonces are unique per sender.
func SplitDistributor(d Deps) Worker {
	c := d.Chain
	return workerFunc(func(ctx context.Context) error {
		if op, ok := c.SplitChain.(*chain.Operator); ok && c.Dial != nil {
			if late, ok := op.Backend().(*chain.LateBackend); ok && !late.Connected() {
				rpc, err := c.Dial(ctx, "split deployment and distribution")
				if err != nil {
					return err
				}
				defer rpc.Close()
				late.Connect(rpc.Backend())
				d.Log.Info().Msg("chain connected: split deployment and distribution enabled")
			}
		}
		if c.SplitOperator == nil {
			return nil
		}
		h := settlement.NewDistributeSplitsHandler(d.Store, commands.NewSplits(d.Store), readmodels.NewReceipts(d.Pool), c.SplitOperator, time.Now)
		return h.Run(ctx, distributeInterval, d.Log)
	})
}

// subscriptionCharging is the daily charging run, on the instance that leads the subscriptions
// projector only (other instances stand by; the claims keep even two runs apart); between daily
// runs it recovers charges left open by a crash every 5 minutes. On every instance, the charge
// webhooks queued are sent every 2 seconds.
func subscriptionCharging(d Deps, leader interface{ Leader() bool }) Worker {
	h := d.Chain.Charger
	return workerFunc(func(ctx context.Context) error {
		if h == nil {
			return nil
		}
		sender := &webhooks.SubscriptionSender{Outbox: readmodels.NewSubscriptionWebhooks(d.Pool), Keys: d.WebhookKeys, Via: d.Dispatcher, Log: d.Log}
		// The sender ends with the ticker and is waited for, so that serve's shutdown never
		// closes the pool under a delivery.
		sctx, stop := context.WithCancel(ctx)
		sent := make(chan struct{})
		go func() { defer close(sent); _ = sender.Run(sctx, 2*time.Second) }()
		defer func() { stop(); <-sent }()
		return h.Run(ctx, leader.Leader, 24*time.Hour, 5*time.Minute)
	})
}
