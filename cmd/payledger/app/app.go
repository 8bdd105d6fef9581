// Package app is payledger's composition root: New builds the application once (the request use
// cases and the queries beside them, the projections, the settlement processes) for `payledger
// serve` and for the tests, which reuse it instead of repeating the wiring (as benbjohnson/wtf's
// cmd/wtfd Main and wild-workouts' service.NewApplication do). The HTTP layer receives the
// handlers it calls; it builds none.
package app

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/rs/zerolog"
	"go.opentelemetry.io/otel/trace"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/journal"
	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/internal/cache"
	"github.com/payledger/payledger/internal/secrets"
	"github.com/payledger/payledger/projections"
	"github.com/payledger/payledger/readmodels"
	"github.com/payledger/payledger/transport/tracing"
	"github.com/payledger/payledger/webhooks"
)

// Config is the one configuration value the service is built from (Build): the opened stores,
// the clock, and every setting the use cases and processes read. Optional capabilities are
// explicit here (a zero Chain, Processor or Subscriptions is "off", and Capabilities says so);
// everything else is required.
type Config struct {
	Store eventstore.Store // the opened adapter; Build wraps it (the receipts projection at append)
	Pool  *pgxpool.Pool
	Now   func() time.Time
	Log   zerolog.Logger // the projections' and processes' (commands log through the request's)

	// ReplicaPool is DATABASE_REPLICA_URL's pool (nil: every read on the primary): the reads that
	// tolerate staleness go to it through Service.Replica (readmodels.ReplicaReads).
	ReplicaPool *pgxpool.Pool

	// SecretsKey seals webhook signing keys (32 bytes); JournalPath is the order journal's file.
	SecretsKey  []byte
	JournalPath string
	// Journal, when set, is the order journal already open (serve takes its lock before anything
	// else, so that a second serve on the same JOURNAL_PATH changes nothing); else Build opens
	// JournalPath. Either way it is Service.Journal (its Close is idempotent: whoever opened
	// it closes it, and a failed Build closes it too).
	Journal    *journal.Journal
	Production bool // webhooks go only to public https addresses
	// Metrics counts deliveries and reads the journal's figures.
	Metrics Metrics
	// Dispatch, when set, adjusts the webhook dispatcher before it starts (tests: short delays).
	Dispatch func(*webhooks.Dispatcher)

	PlatformRecipient string // lower-case wallet, may be empty
	// Deposits computes new receipts' deposit addresses (nil: none); PaymentWindow is their window.
	Deposits             commands.DepositAddresses
	PaymentWindow        time.Duration
	PaymentMonitorWindow time.Duration // how long an expired receipt's deposit stays watched
	PaymentLateWatch     time.Duration // how long after that its late transfers are still recorded (0: the default)
	SweepFailedMinCents  int64         // the least, in USD cents, a failed receipt's deposit funds must be worth to be swept (0: 1% of its price only)
	Processor            OnrampClient  // nil: PROCESSOR_API_URL unset
	Subscriptions        Subscriptions // zero: subscriptions are not configured
	Chain                Chain         // zero: no chain configured
	// Tracer, when set, gives each use case and each append a span (tracing.go); nil: none.
	Tracer trace.TracerProvider
	// ExportMaxConcurrent is the CSV exports' connection budget (EXPORT_MAX_CONCURRENT): Build
	// opens them a pool of their own of that many connections, and the HTTP layer admits as
	// many exports at once (zero: readmodels.DefaultExportMaxConcurrent).
	ExportMaxConcurrent int
}

// Metrics are the service's counters that the application feeds (transport.Metrics).
type Metrics interface {
	webhooks.DeliveryCounter
	ObserveJournal(figures func() (pending, failing int64, failures uint64))
}

// infra are the parts Build opens before the application: what the use cases and processes are
// built over besides the event store.
type infra struct {
	dispatcher    *webhooks.Dispatcher
	invalidations *cache.Invalidations
	webhookKeys   *secrets.WebhookKeys
	journal       commands.Journal
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
	// Invalidations keeps the in-process caches honest across instances (NOTIFY).
	Invalidations *cache.Invalidations
}

// Queries are the reads the HTTP layer makes besides the read models.
type Queries struct {
	Splits    *commands.Splits // the merchants' splits, from their streams
	Journaled *commands.Issuer // an order accepted in degraded mode, not yet stored
}

// Projections are the projection runners.
type Projections struct {
	Receipts, Users, Subscriptions *projections.Runner
	// ReceiptCreated records receipt.created in the merchants' event log.
	ReceiptCreated *projections.Runner
}

// Caches are the order sources' caches.
type Caches struct {
	Pricing   *cache.Cache[commands.MerchantPricing]
	Inventory *cache.Cache[readmodels.Item]
}

// Cache sizes: an item is a few hundred bytes, but its picture (thumb) may take 64 KiB, so the
// inventory cache is bounded in bytes too (50,000 such pictures held 3.2 GB per instance).
const (
	pricingCacheSize    = 10_000
	inventoryCacheSize  = 50_000
	inventoryCacheBytes = 64 << 20
)

// inventoryEntrySize is roughly what a cached item holds: its texts and the struct around them.
func inventoryEntrySize(it readmodels.Item) int {
	return 160 + len(it.Wallet) + len(it.SKU) + len(it.Name) + len(it.Currency) + len(it.Thumb)
}

// Worker is a background job that runs until its context ends.
type Worker interface {
	Run(ctx context.Context) error
}

// newApplication builds the application: projections first (the receipts projector applies new
// receipts in their append), then the use cases over the caches, then the processes over the use
// cases. Every one of them gets the same write store: the projection's wrapper.
func newApplication(d Config, in infra, health *Health) (*Application, error) {
	a := &Application{Events: d.Store}
	if err := a.openProjections(d, in); err != nil {
		return nil, err
	}
	d.Store = a.Events // the use cases and processes append through the projection's wrapper
	a.Caches.Pricing = cache.NewCache[commands.MerchantPricing](pricingCacheSize, false)
	a.Caches.Inventory = cache.NewSizedCache(inventoryCacheSize, inventoryCacheBytes, true, inventoryEntrySize)
	in.invalidations.Register(readmodels.PricingChangedChannel, a.Caches.Pricing)
	in.invalidations.Register(readmodels.InventoryChangedChannel, a.Caches.Inventory)
	reconcile := a.buildCommands(d, in)
	a.buildProcesses(d, in, reconcile, health)
	if d.Tracer != nil { // after the processes: they call the use cases undecorated, as before
		a.Commands = traceCommands(a.Commands, tracing.Tracer(d.Tracer))
	}
	return a, nil
}

// openProjections opens the receipts, users and subscriptions projectors.
func (a *Application) openProjections(d Config, in infra) error {
	receiptsProjector := projections.LiveReceipts(in.dispatcher.Wake)
	p := &a.Projections
	var err error
	if p.Receipts, err = projections.NewRunner(d.Pool, d.Store, receiptsProjector, d.Log); err != nil {
		return err
	}
	if p.Users, err = projections.NewRunner(d.Pool, d.Store, projections.NewUsers(d.Store), d.Log); err != nil { // XP from receipt events
		return err
	}
	if p.Subscriptions, err = projections.NewRunner(d.Pool, d.Store, projections.Subscriptions{}, d.Log); err != nil {
		return err
	}
	decided := projections.NewGenerations(0) // new receipts' states, from their append to receipt.created
	if err := a.openReceiptCreated(d, in, decided); err != nil {
		return err
	}
	if pg, ok := d.Store.(*postgres.Store); ok { // a new receipt's row commits with its event when it can
		atAppend := receiptsProjector.AtAppend(pg, p.Receipts).HandsTo(decided)
		a.Events = atAppend
		if d.Tracer != nil {
			a.Events = tracedAppends{ReceiptsAtAppend: atAppend, tracer: tracing.Tracer(d.Tracer)}
		}
	}
	return nil
}

// openReceiptCreated opens the receipt.created projector, first seeding its checkpoint at the
// receipts projector's (receipts made before it existed are not announced).
func (a *Application) openReceiptCreated(d Config, in infra, decided *projections.Generations) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := projections.SeedReceiptCreated(ctx, d.Pool); err != nil {
		return err
	}
	var err error
	a.Projections.ReceiptCreated, err = projections.NewRunner(d.Pool, d.Store,
		projections.ReceiptCreated{Notify: in.dispatcher.Wake, Decided: decided}, d.Log)
	return err
}
