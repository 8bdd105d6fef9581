package main

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/cmd/payledger/app"
	"github.com/payledger/payledger/docs"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/journal"
	"github.com/payledger/payledger/readmodels"
	"github.com/payledger/payledger/transport"
	"github.com/payledger/payledger/transport/onramp"
	"github.com/payledger/payledger/webhooks"
)

// services are what serve wires together between opening the ledger and listening: the
// application (use cases, projections, settlement processes: cmd/payledger/app) and the
// infrastructure around it (read models, caches, webhook dispatch, the journal).
type services struct {
	pool  *pgxpool.Pool
	store eventstore.Store
	app   *app.Application

	webhookKeys *readmodels.WebhookKeys
	outbox      *readmodels.Outbox
	keys        *readmodels.Keys
	caches      *readmodels.Invalidations
	usage       *readmodels.Usage
	metrics     *transport.Metrics
	dispatcher  *webhooks.Dispatcher
	endpoints   *readmodels.Endpoints
	exports     *readmodels.Exports // on a pool of their own (EXPORT_MAX_CONCURRENT)

	jrnl     *journal.Journal
	replayer *journal.Replayer
	deposits deposits // payments by deposit address (serve_deposits.go)
}

// wireServices builds the services in their start-up order; the journal's replay at start runs
// here, once the application is built, so orders accepted before a crash go in before the
// service listens.
func wireServices(ctx context.Context, cfg config, rpc *chain.RPC, pool *pgxpool.Pool, store eventstore.Store, log zerolog.Logger) (*services, error) {
	s := &services{pool: pool, store: store}
	deps, err := openDeposits(ctx, cfg, rpc, pool, store, log)
	if err != nil {
		return nil, err
	}
	s.deposits = deps
	if err := s.openReadModels(cfg, log); err != nil {
		return nil, err
	}
	if err := s.openJournal(cfg, log); err != nil {
		return nil, err
	}
	if s.exports, err = readmodels.OpenExports(ctx, pool, cfg.ExportMaxConcurrent); err != nil {
		return nil, err
	}
	appDeps, err := s.appDeps(cfg, rpc, log)
	if err != nil {
		return nil, err
	}
	if s.app, err = app.New(appDeps); err != nil {
		return nil, err
	}
	s.store = s.app.Events // the write side (journal replay, transport) appends through the projection
	s.openReplayer(log)
	if _, err := s.replayer.DrainOnce(ctx); err != nil { // orders accepted before a crash go in first
		log.Warn().Err(err).Msg("journal replay at start; will retry in the background")
	}
	return s, nil
}

// appDeps are the application's dependencies: the services' stores and the configuration's
// chain, onramp processor and subscriptions.
func (s *services) appDeps(cfg config, rpc *chain.RPC, log zerolog.Logger) (app.Deps, error) {
	splitOps, splitSender, err := splitChain(cfg, rpc, s.pool, log)
	if err != nil {
		return app.Deps{}, err
	}
	subs := subscriptionChain(cfg, log)
	d := app.Deps{Store: s.store, Pool: s.pool, Now: time.Now, Log: log, Dispatcher: s.dispatcher, EndpointData: transport.WebhookFields,
		Invalidations: s.caches, WebhookKeys: s.webhookKeys, Journal: s.jrnl, PlatformRecipient: strings.ToLower(cfg.PlatformRecipient),
		Subscriptions: subs, Deposits: s.deposits.addresses, PaymentWindow: cfg.PaymentWindow,
		PaymentMonitorWindow: cfg.PaymentMonitorWindow,
		Chain: app.Chain{RPC: rpc, Tokens: cfg.ChainTokens, Confirmations: cfg.ChainConfirmations, SplitChain: splitOps, SplitOperator: splitSender,
			Charger: subscriptionCharger(cfg, subs, rpc, s.pool, s.store, log), Transactions: chainTransactions(cfg, rpc)}}
	if cfg.EthRPCURL != "" {
		d.Chain.Dial = func(ctx context.Context, waiting string) (*chain.RPC, error) {
			return dialUntilAnswered(ctx, cfg, log, waiting)
		}
	}
	if cfg.ProcessorAPIURL != "" {
		d.Processor = onramp.New(cfg.ProcessorAPIURL, cfg.ProcessorAPIKey)
	}
	return d, nil
}

// openReadModels opens the read models, the in-process caches and the webhook dispatcher.
func (s *services) openReadModels(cfg config, log zerolog.Logger) error {
	var err error
	if s.webhookKeys, err = readmodels.NewWebhookKeys(s.pool, cfg.SecretsKey); err != nil {
		return err
	}
	s.outbox = readmodels.NewOutbox(s.pool)
	s.keys = readmodels.NewKeys(s.pool)
	// In-process caches (keys, status reads, inventory, pricing) stay honest through NOTIFYs.
	s.caches = readmodels.NewInvalidations(s.pool)
	s.caches.Register(readmodels.RevokedChannel, s.keys.Cache())
	s.usage = readmodels.NewUsage(s.pool, time.Now)
	s.metrics = transport.NewMetrics(readmodels.NewOps(s.pool))
	s.endpoints = readmodels.NewEndpoints(s.pool, s.webhookKeys)
	s.dispatcher = (&webhooks.Dispatcher{Outbox: s.outbox, Keys: s.webhookKeys, Events: s.store, ReceiptFields: transport.WebhookFields,
		Log: log, Production: cfg.production(), Metrics: s.metrics, Endpoints: s.endpoints}).Init()
	return nil
}

// openJournal opens the order journal; wireServices builds its replayer and replays it once the
// application is built (a failed replay is only a warning: the replayer worker retries it).
func (s *services) openJournal(cfg config, log zerolog.Logger) error {
	jrnl, err := journal.Open(cfg.JournalPath)
	if err != nil {
		return err
	}
	s.jrnl = jrnl
	return nil
}

// openReplayer builds the journal's replayer over the application's write store.
func (s *services) openReplayer(log zerolog.Logger) {
	replayer := journal.NewReplayer(s.jrnl, s.store, s.webhookKeys, readmodels.Unavailable, log)
	s.replayer = replayer
	s.metrics.ObserveJournal(func() (pending, failing int64, failures uint64) {
		st := replayer.Stats()
		return st.Pending, st.Failing, st.Failures
	})
}

// newAPI builds the HTTP API on the services: the application's handlers, the read models.
func newAPI(cfg config, base zerolog.Logger, s *services, limiter transport.Limiter) (*transport.Server, error) {
	openapi, err := docs.OpenAPIJSON()
	if err != nil {
		return nil, err
	}
	pool, a := s.pool, s.app
	return transport.New(transport.Deps{
		OpenAPIJSON: openapi,
		Log:         base, DB: pool, Now: time.Now,
		Keys: s.keys, Nonces: readmodels.NewNonces(pool), Sessions: readmodels.NewSessions(pool),
		Signer: chain.Login{ChainID: cfg.ChainID}, Limiter: limiter,
		Commands: a.Commands, Splits: a.Queries.Splits, Journaled: a.Queries.Journaled, Charger: a.Processes.Charger,
		Events: s.store, Shops: readmodels.NewShops(pool), Sites: readmodels.NewSites(pool),
		Inventory: readmodels.NewInventory(pool), Receipts: readmodels.NewReceipts(pool), ReceiptsView: a.Projections.Receipts,
		Outbox: s.outbox, Webhooks: s.dispatcher,
		Prices: readmodels.NewPrices(pool), Usage: s.usage, Figures: readmodels.NewReceipts(pool), Metrics: s.metrics, ReceiptSearch: readmodels.NewReceipts(pool),
		Invalidations: s.caches, PricingCache: a.Caches.Pricing, InventoryCache: a.Caches.Inventory,
		Users: readmodels.NewUsers(pool).KeepTopInMemory(s.caches),
		Plans: readmodels.NewPlans(pool), SubscriptionLists: readmodels.NewSubscriptions(pool),
		SubscriptionsView: a.Projections.Subscriptions,
		WebhookEndpoints:  s.endpoints, EndpointSender: s.dispatcher, Exports: s.exports,
		Config: transport.Config{
			GatewayMode: cfg.AuthMode == "gateway", EdgeSecret: cfg.EdgeSecret, JWTSecret: cfg.JWTSecret,
			CronSecret: cfg.CronSecret, AdminWallets: cfg.AdminWallets, Production: cfg.production(),
			KeyLimitPerMinute: cfg.RateLimitPerMinute, PublicLimitPerMinute: cfg.RateLimitPublicPerMinute,
			SiteConfigRequiresKey:  cfg.SiteConfigRequiresKey,
			ProcessorWebhookSecret: cfg.ProcessorWebhookSecret, PublicBaseURL: cfg.PublicBaseURL, MetricsToken: cfg.MetricsToken,
			MetricsSeparate: cfg.MetricsAddr != "", TrustedProxies: cfg.TrustedProxies, KeyCacheTTL: cfg.KeyCacheTTL,
			PaymentChain:        paymentChain(cfg),
			ExportMaxConcurrent: cfg.ExportMaxConcurrent, ExportTimeout: cfg.ExportTimeout,
		},
	})
}

// startWorkers runs every background worker in its own goroutine until stop, which cancels them
// and waits for all of them to return. It is the one place background processes start.
func startWorkers(s *services, log zerolog.Logger) (stop func()) {
	workCtx, stopWork := context.WithCancel(context.Background())
	var workers sync.WaitGroup
	for _, w := range s.workers() {
		workers.Go(func() {
			if err := w.Run(workCtx); err != nil && !errors.Is(err, context.Canceled) {
				log.Error().Err(err).Msg("background worker stopped")
			}
		})
	}
	return func() { stopWork(); workers.Wait() }
}

// workers are serve's background jobs: the application's (projectors, the onramp reconciler,
// wallet verification, split distribution, subscription charging) and the infrastructure's
// (webhook dispatch, usage, journal replay, cache invalidations, deposit detection).
func (s *services) workers() []app.Worker {
	return append(s.app.Workers(), s.dispatcher, s.usage,
		workerFunc(func(ctx context.Context) error { return s.replayer.Run(ctx, 2*time.Second) }), workerFunc(s.caches.Run), s.deposits.worker)
}
