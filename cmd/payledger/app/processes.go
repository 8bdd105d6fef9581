package app

import (
	"cmp"
	"context"
	"time"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/internal/panics"
	"github.com/payledger/payledger/readmodels"
	"github.com/payledger/payledger/settlement"
	"github.com/payledger/payledger/settlement/pgstore"
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
	// LogRange is CHAIN_LOG_RANGE: the deposit detector reads at most this many blocks a step, so
	// each eth_getLogs spans at most that many (0: the detector's default, chain.MaxLogRange).
	LogRange uint64
	// Operator is the chain split deployment checks and deploys on, and sweeps send from (nil: none, splitAddress
	// required); SplitOperator signs from CHAIN_OPERATOR_KEY (nil: nothing is deployed or released).
	Operator      *chain.Operator
	SplitOperator *settlement.OperatorSender
	// Transactions reads a submitted hash's transaction (nil: no chain; hints go unchecked).
	Transactions commands.ChainTransactions
	// ChargeOperator sends subscription charges from CHAIN_OPERATOR_KEY (nil: subscriptions are
	// not charged; the charging routes answer 503). One built before the node answered
	// (chain.NewLateChargeOperator) is connected by the charging worker's dial (connectCharging).
	// Charger, when set, is used instead of the
	// handler Build makes over it (tests that hold the charging ledger).
	ChargeOperator settlement.ChargeChain
	Charger        *settlement.ChargeSubscriptionsHandler
	// ChargeTick is the charging ticker's pace: recovery of open charges, and a failed daily run
	// run again (0: chargeTick; tests shorten it).
	ChargeTick time.Duration
}

// Paces of the processes: a release sent in one distribution pass is recorded in a later one, once mined; open onramp attempts older than
// reconcileMinAge are verified every reconcileInterval.
const (
	distributeInterval = 2 * time.Second
	chargeTick         = 5 * time.Minute
	reconcileInterval  = 30 * time.Second
	reconcileMinAge    = 2 * time.Minute
)

// Processes are the settlement processes, each a worker; Charger is also what the charging routes
// call.
type Processes struct {
	OnrampReconciler     *settlement.OnrampReconciler
	SplitDistributor     Worker
	SubscriptionCharging Worker
	DepositSweeper       Worker // moves paid receipts' deposits to their splits (sweeps.go)
	DepositDetector      Worker // credits transfers to deposit addresses (deposits.go)
	PaymentWindow        Worker // expires unpaid receipts at the end of their window (DESIGN 9)
	PaymentHints         Worker // checks the hints kept waiting for their transaction (DESIGN 10)
	RefundVerifier       Worker // proves claimed refunds on chain (DESIGN 10; refunds.go)
	Charger              *settlement.ChargeSubscriptionsHandler
}

// workerFunc makes a function a Worker.
type workerFunc func(ctx context.Context) error

func (f workerFunc) Run(ctx context.Context) error { return f(ctx) }

// buildProcesses builds the settlement processes, each a worker reporting to health; a process
// whose optional capability is off is nil (Workers leaves it out, Capabilities says why).
func (a *Application) buildProcesses(d Config, in infra, reconcile *commands.ReconcileOnrampHandler, health *Health) {
	charger := subscriptionCharger(d)
	d.Chain.Charger = charger
	if charger != nil {
		// A failed daily run (the node down at charge time, subscriptions left unreadable) shows
		// the worker stuck until a later run goes through: its loop goes on, so Watch sees nothing.
		charger.Ran = func(err error) { health.Ran(chargingWorker, err) }
	}
	a.Processes = Processes{
		// One instance at a time asks the processor (stop 73); every instance reports what it found (stop 74).
		OnrampReconciler: settlement.NewOnrampReconciler(logOutcomes(reconcile, noteReconcile), in.dispatcher, reconcileInterval, reconcileMinAge, d.Log).
			InTurn(pgstore.NewReconcileTurn(d.Pool, reconcileInterval)).SharingState(pgstore.NewProcessorState(d.Pool)),
		SplitDistributor:     splitDistributor(d, health),
		SubscriptionCharging: subscriptionCharging(d, in, a.Projections.Subscriptions),
		PaymentWindow:        paymentWindow(d, health, reconcile),
		DepositSweeper:       depositSweeper(d, health),
		DepositDetector:      depositDetector(d, health),
		PaymentHints:         paymentHints(d, health),
		RefundVerifier:       refundVerifier(d, health),
		Charger:              charger,
	}
}

// hintInterval paces the hint follower: about a block of the development chain.
const hintInterval = 2 * time.Second

// paymentHints is the hint follower: it checks the payment hints whose transaction was not
// mined when they were posted (every instance may run it: a receipt takes one attempt per hash).
// Nil without a chain: no receipt has a deposit address, so no hint is kept.
func paymentHints(d Config, health *Health) Worker {
	if d.Chain.Transactions == nil {
		return nil
	}
	h := commands.NewCheckPaymentHintsHandler(d.Store, pgstore.NewPaymentHints(d.Pool), readmodels.NewReceipts(d.Pool), d.Chain.Transactions, d.Now)
	return health.Every("payment hints", hintInterval, func(ctx context.Context) (bool, error) {
		_, err := h.Handle(ctx, commands.CheckPaymentHints{})
		return true, err
	})
}

// paymentWindow records the expiry of receipts whose payment window ended unpaid; every instance
// may run it: the stream's expected version records each expiry once. The database's clock says
// when a window has ended (JudgedBy), and the onramp processor is asked about a receipt's earlier
// sessions before its expiry (AskingAtEnd, the reconciliation's handler), by one instance at a
// time (AskingInTurn).
func paymentWindow(d Config, health *Health, reconcile *commands.ReconcileOnrampHandler) Worker {
	receipts := pgstore.NewReceipts(d.Pool)
	h := settlement.NewPaymentWindowHandler(d.Store, settlement.WithStuckACH(receipts, readmodels.NewReceipts(d.Pool)),
		settlement.PaymentWindowConfig{Window: d.PaymentWindow, Monitor: d.PaymentMonitorWindow}, d.Now).
		JudgedBy(receipts, nil).AskingAtEnd(reconcile, d.Log).AskingInTurn(pgstore.NewWindowAskTurn(d.Pool))
	return health.Every("payment window", h.Config().Poll, func(ctx context.Context) (bool, error) {
		_, err := h.Handle(ctx)
		return true, err
	})
}

// splitDistributor connects a node unreachable at start (the operator then runs over a
// chain.LateBackend) and releases the splits of paid receipts. Every instance may run it: a
// receipt is covered once per payee and nonces are unique per sender. Nil without an operator key.
func splitDistributor(d Config, health *Health) Worker {
	c := d.Chain
	if c.SplitOperator == nil {
		return nil
	}
	return health.Stepped("split distribution", distributeInterval, func(ctx context.Context, loop func(context.Context, Step) error) error {
		if c.Operator != nil && c.Dial != nil {
			if late, ok := c.Operator.Backend().(*chain.LateBackend); ok && !late.Connected() {
				rpc, err := c.Dial(ctx, "split deployment and distribution")
				if err != nil {
					return err
				}
				defer rpc.Close()
				late.Connect(rpc.Backend())
				d.Log.Info().Msg("chain connected: split deployment and distribution enabled")
			}
		}
		h := settlement.NewDistributeSplitsHandler(d.Store, commands.NewSplits(d.Store), pgstore.NewReceipts(d.Pool), c.SplitOperator, time.Now)
		return loop(ctx, func(ctx context.Context) (bool, error) {
			_, err := h.Handle(ctx)
			return true, err
		})
	})
}

// chargingWorker is the charging worker's name in /healthz.
const chargingWorker = "subscription charging"

// subscriptionCharging is the daily charging run, on the instance that leads the subscriptions
// projector only (other instances stand by; the claims keep even two runs apart); between daily
// runs it recovers charges left open by a crash every 5 minutes. On every instance, the charge
// webhooks queued are sent every 2 seconds.
func subscriptionCharging(d Config, in infra, leader interface{ Leader() bool }) Worker {
	h := d.Chain.Charger
	if h == nil {
		return nil
	}
	return workerFunc(func(ctx context.Context) error {
		life := ctx // serve's: a connection the dial makes lives as long
		sender := &webhooks.SubscriptionSender{Outbox: readmodels.NewSubscriptionWebhooks(d.Pool), Keys: in.webhookKeys, Via: in.dispatcher, Log: d.Log}
		// The sender ends with the ticker and is waited for, so that serve's shutdown never
		// closes the pool under a delivery. A sender that panics (recovered: its attempts' panics
		// are recovered in the sender) ends the ticker too, and the worker returns the panic, to
		// be started again whole (Health).
		ctx, stop := context.WithCancel(ctx)
		sent := make(chan struct{})
		var panicked error
		go func() {
			defer close(sent)
			if panicked = panics.Catch(ctx, d.Log, func() { _ = sender.Run(ctx, 2*time.Second) }); panicked != nil {
				stop()
			}
		}()
		defer func() { stop(); <-sent }() // also when Run panics: never two senders
		dialed := connectCharging(ctx, life, d)
		defer func() { stop(); <-dialed }()
		err := h.Run(ctx, leader.Leader, 24*time.Hour, cmp.Or(d.Chain.ChargeTick, chargeTick))
		stop()
		<-sent
		return cmp.Or(panicked, err)
	})
}

// lateCharging is a charging chain built before its node answered (chain.NewLateChargeOperator).
type lateCharging interface {
	Connected() bool
	Connect(*chain.RPC) bool
}

// connectCharging dials, in the background, the node of a charging chain that did not answer at
// start, and connects it: charging, which the charging routes and the daily run answer
// chain_unavailable for meanwhile, comes on without a restart (before, it stayed off until
// one, and /healthz said so). The connection lives until serve ends (life's end, not the
// worker's restart: the chain keeps using it). The dial ends with ctx; the channel closes when it is over.
func connectCharging(ctx, life context.Context, d Config) <-chan struct{} {
	done := make(chan struct{})
	late, ok := d.Chain.ChargeOperator.(lateCharging)
	if !ok || late.Connected() || d.Chain.Dial == nil {
		close(done)
		return done
	}
	go func() {
		defer close(done)
		rpc, err := d.Chain.Dial(ctx, "subscription charging")
		if err != nil {
			return // ctx ended
		}
		if !late.Connect(rpc) {
			rpc.Close()
			return
		}
		context.AfterFunc(life, rpc.Close)
		d.Log.Info().Msg("chain connected: subscription charging enabled")
	}()
	return done
}

// subscriptionCharger charges subscriptions when subscriptions are configured
// (Subscriptions.Operator and Chain.ChargeOperator set, its node connected or not yet); else nil (the charging routes
// answer 503, no charging run). A Charger given in the configuration (tests) is used as it is.
func subscriptionCharger(d Config) *settlement.ChargeSubscriptionsHandler {
	if d.Chain.Charger != nil {
		return d.Chain.Charger
	}
	if d.Chain.ChargeOperator == nil || d.Subscriptions.Operator == "" {
		return nil
	}
	h := settlement.NewChargeSubscriptionsHandler(d.Store, d.Chain.ChargeOperator, pgstore.NewSubscriptionCharges(d.Pool),
		pgstore.NewSubscriptions(d.Pool), commands.NewSplits(d.Store), d.Now)
	h.Log = d.Log
	h.Notify = readmodels.NewSubscriptionWebhooks(d.Pool)
	h.Progress = subscriptionsProgress{store: d.Store, pool: d.Pool} // no daily run from a model being rebuilt
	return h
}

// SplitChain is the operator as split deployment's chain; none (a nil interface, not a nil
// pointer in one) without a chain.
func (c Chain) SplitChain() settlement.SplitChain {
	if c.Operator == nil {
		return nil
	}
	return c.Operator
}
