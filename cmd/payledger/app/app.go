// Package app is payledger's composition root: New builds the application once (the request use
// cases and the queries beside them, the projections, the settlement processes) for `payledger
// serve` and for the tests, which reuse it instead of repeating the wiring (as benbjohnson/wtf's
// cmd/wtfd Main and wild-workouts' service.NewApplication do). The HTTP layer receives the
// handlers it calls; it builds none.
package app

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/projections"
	"github.com/payledger/payledger/readmodels"
	"github.com/payledger/payledger/webhooks"
)

// Deps are what the application is built on: the stores, the clock, and the configuration the
// use cases and processes read.
type Deps struct {
	Store eventstore.Store
	Pool  *pgxpool.Pool
	Now   func() time.Time
	Log   zerolog.Logger // the projections' and processes' (commands log through the request's)

	// Dispatcher delivers webhooks: the receipts projector wakes it, the reconciler retries
	// through it, subscription charge webhooks go through it.
	Dispatcher *webhooks.Dispatcher
	// EndpointData renders a receipt for the merchants' event log (transport.WebhookFields).
	EndpointData func(receipt.State) map[string]any
	// Invalidations, when set, keeps the order sources' pricing and inventory caches (nil: none).
	Invalidations *readmodels.Invalidations
	// WebhookKeys seals each new receipt's webhook signing key.
	WebhookKeys *readmodels.WebhookKeys
	// Journal keeps orders accepted while the datastore is down (nil: 503 instead).
	Journal commands.Journal

	PlatformRecipient string // lower-case wallet, may be empty
	// Deposits computes new receipts' deposit addresses (nil: none); PaymentWindow is their window.
	Deposits             commands.DepositAddresses
	PaymentWindow        time.Duration
	PaymentMonitorWindow time.Duration // how long an expired receipt's deposit stays watched
	Processor            OnrampClient  // nil: PROCESSOR_API_URL unset
	Subscriptions        Subscriptions // zero: subscriptions are not configured
	Chain                Chain         // zero: no chain configured
}

// Subscriptions is what creating subscriptions checks permissions against; the zero value means
// none (creation answers 503 subscriptions_not_configured).
type Subscriptions struct {
	Signer   commands.PermissionSigner // chain.SpendPermissions on CHAIN_ID and SPEND_PERMISSION_MANAGER
	Operator string                    // the spender every permission must name
	USDC     string                    // the token every permission must name
}

// Application is payledger, built once.
type Application struct {
	// Events is the store the write side appends through: the receipts projection applies a new
	// receipt in its append (projections.ReceiptsAtAppend) when the store is PostgreSQL.
	Events eventstore.Store
	// Commands are the request use cases, with their outcomes logged (logging.go).
	Commands commands.Handlers
	Queries  Queries
	// Projections keep the read models; each runs as a worker.
	Projections Projections
	// Processes are the background processes of settlement/, driven by the chain or the clock.
	Processes Processes
	// Caches are the order sources' caches; the HTTP layer forgets what its own writes change.
	Caches Caches
}

// Queries are the reads the HTTP layer makes besides the read models.
type Queries struct {
	Splits    *commands.Splits // the merchants' splits, from their streams
	Journaled *commands.Issuer // an order accepted in degraded mode, not yet stored
}

// Projections are the projection runners.
type Projections struct {
	Receipts, Users, Subscriptions *projections.Runner
}

// Caches are the order sources' caches (nil without Invalidations).
type Caches struct {
	Pricing   *readmodels.Cache[commands.MerchantPricing]
	Inventory *readmodels.Cache[readmodels.Item]
}

// Cache sizes: an item is a few hundred bytes.
const (
	pricingCacheSize   = 10_000
	inventoryCacheSize = 50_000
)

// Worker is a background job that runs until its context ends.
type Worker interface {
	Run(ctx context.Context) error
}

// New builds the application: projections first (the receipts projector applies new receipts in
// their append), then the use cases over the caches, then the processes over the use cases.
func New(d Deps) (*Application, error) {
	if d.Store == nil || d.Pool == nil || d.Now == nil || d.Dispatcher == nil || d.WebhookKeys == nil {
		return nil, errors.New("app: Store, Pool, Now, Dispatcher and WebhookKeys are required")
	}
	a := &Application{Events: d.Store}
	if err := a.openProjections(d); err != nil {
		return nil, err
	}
	d.Store = a.Events // the use cases and processes append through the projection's wrapper
	if d.Invalidations != nil {
		a.Caches.Pricing = readmodels.NewCache[commands.MerchantPricing](pricingCacheSize, false)
		a.Caches.Inventory = readmodels.NewCache[readmodels.Item](inventoryCacheSize, true)
		d.Invalidations.Register(readmodels.PricingChangedChannel, a.Caches.Pricing)
		d.Invalidations.Register(readmodels.InventoryChangedChannel, a.Caches.Inventory)
	}
	reconcile := a.buildCommands(d)
	a.buildProcesses(d, reconcile)
	return a, nil
}

// openProjections opens the receipts, users and subscriptions projectors.
func (a *Application) openProjections(d Deps) error {
	receiptsProjector := projections.NewReceipts(d.Dispatcher.Wake)
	receiptsProjector.EndpointData = d.EndpointData // the merchants' event log (webhook endpoints)
	p := &a.Projections
	var err error
	if p.Receipts, err = projections.NewRunner(d.Pool, d.Store, receiptsProjector, d.Log); err != nil {
		return err
	}
	if p.Users, err = projections.NewRunner(d.Pool, d.Store, projections.Users{}, d.Log); err != nil { // XP from receipt events
		return err
	}
	if p.Subscriptions, err = projections.NewRunner(d.Pool, d.Store, projections.Subscriptions{}, d.Log); err != nil {
		return err
	}
	if pg, ok := d.Store.(*postgres.Store); ok { // a new receipt's row commits with its event when it can
		a.Events = receiptsProjector.AtAppend(pg, p.Receipts)
	}
	return nil
}

// Workers are the application's background jobs: the projections and the settlement processes.
// Serve runs them with its infrastructure's (webhook dispatch, usage, journal replay, cache
// invalidations); a new process goes into Processes and here.
func (a *Application) Workers() []Worker {
	p := a.Processes
	return []Worker{a.Projections.Receipts, a.Projections.Users, a.Projections.Subscriptions,
		p.OnrampReconciler, p.WalletVerifier, p.SplitDistributor, p.SubscriptionCharging, p.PaymentWindow, p.DepositSweeper, p.RefundVerifier}
}
