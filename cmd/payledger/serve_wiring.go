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
	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/docs"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/journal"
	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/projections"
	"github.com/payledger/payledger/readmodels"
	"github.com/payledger/payledger/settlement"
	"github.com/payledger/payledger/transport"
	"github.com/payledger/payledger/transport/onramp"
	"github.com/payledger/payledger/webhooks"
)

// services are what serve wires together between opening the ledger and listening: the read
// models, projectors, journal and chain operations that both the API and the background workers
// use.
type services struct {
	rpc   *chain.RPC
	pool  *pgxpool.Pool
	store eventstore.Store

	splitOps    settlement.SplitChain
	splitSender *settlement.OperatorSender

	webhookKeys *readmodels.WebhookKeys
	outbox      *readmodels.Outbox
	keys        *readmodels.Keys
	caches      *readmodels.Invalidations
	usage       *readmodels.Usage
	metrics     *transport.Metrics
	dispatcher  *webhooks.Dispatcher
	endpoints   *readmodels.Endpoints

	receiptsRunner      *projections.Runner
	usersRunner         *projections.Runner
	subscriptionsRunner *projections.Runner

	jrnl      *journal.Journal
	replayer  *journal.Replayer
	processor transport.Processor
	subChain  transport.SubscriptionChain
	deposits  deposits // payments by deposit address (serve_deposits.go)
}

// wireServices builds the services in their start-up order; the journal's replay at start runs
// here, so orders accepted before a crash go in before the service listens.
func wireServices(ctx context.Context, cfg config, rpc *chain.RPC, pool *pgxpool.Pool, store eventstore.Store, log zerolog.Logger) (*services, error) {
	s := &services{rpc: rpc, pool: pool, store: store}
	var err error
	if s.splitOps, s.splitSender, err = splitChain(cfg, rpc, pool, log); err != nil {
		return nil, err
	}
	if s.deposits, err = openDeposits(ctx, cfg, rpc, pool, store, log); err != nil {
		return nil, err
	}
	if err := s.openReadModels(cfg, log); err != nil {
		return nil, err
	}
	if err := s.openProjections(log); err != nil {
		return nil, err
	}
	if err := s.openJournal(ctx, cfg, log); err != nil {
		return nil, err
	}
	if cfg.ProcessorAPIURL != "" {
		s.processor = onramp.New(cfg.ProcessorAPIURL, cfg.ProcessorAPIKey)
	}
	return s, nil
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

// openProjections opens the receipts, users and subscriptions projectors.
func (s *services) openProjections(log zerolog.Logger) error {
	receiptsProjector := projections.NewReceipts(s.dispatcher.Wake)
	receiptsProjector.EndpointData = transport.WebhookFields // the merchants' event log (webhook endpoints)
	var err error
	if s.receiptsRunner, err = projections.NewRunner(s.pool, s.store, receiptsProjector, log); err != nil {
		return err
	}
	if s.usersRunner, err = projections.NewRunner(s.pool, s.store, projections.Users{}, log); err != nil { // XP from receipt events
		return err
	}
	if s.subscriptionsRunner, err = projections.NewRunner(s.pool, s.store, projections.Subscriptions{}, log); err != nil {
		return err
	}
	if pg, ok := s.store.(*postgres.Store); ok { // a new receipt's row commits with its event when it can
		pg.SetAtAppend(receiptsProjector.AtAppend(s.receiptsRunner))
	}
	return nil
}

// openJournal opens the order journal and replays it once; a failed replay is only a warning
// because the replayer worker retries it.
func (s *services) openJournal(ctx context.Context, cfg config, log zerolog.Logger) error {
	jrnl, err := journal.Open(cfg.JournalPath)
	if err != nil {
		return err
	}
	replayer := journal.NewReplayer(jrnl, s.store, s.webhookKeys, readmodels.Unavailable, log)
	s.jrnl, s.replayer = jrnl, replayer
	s.metrics.ObserveJournal(func() (pending, failing int64, failures uint64) {
		st := replayer.Stats()
		return st.Pending, st.Failing, st.Failures
	})
	if _, err := replayer.DrainOnce(ctx); err != nil { // orders accepted before a crash go in first
		log.Warn().Err(err).Msg("journal replay at start; will retry in the background")
	}
	return nil
}

// newAPI builds the HTTP API on the services.
func newAPI(cfg config, base zerolog.Logger, s *services, limiter transport.Limiter) (*transport.Server, error) {
	openapi, err := docs.OpenAPIJSON()
	if err != nil {
		return nil, err
	}
	pool := s.pool
	return transport.New(transport.Deps{
		OpenAPIJSON: openapi, Journal: s.jrnl,
		Log: base, DB: pool, Now: time.Now,
		Keys: s.keys, Nonces: readmodels.NewNonces(pool), Sessions: readmodels.NewSessions(pool),
		Signer: chain.Login{ChainID: cfg.ChainID}, Limiter: limiter,
		Events: s.store, Shops: readmodels.NewShops(pool), Sites: readmodels.NewSites(pool),
		Inventory: readmodels.NewInventory(pool), Receipts: readmodels.NewReceipts(pool), ReceiptsView: s.receiptsRunner,
		WebhookKeys: s.webhookKeys, Idempotency: readmodels.NewIdempotency(pool),
		Processor: s.processor, ProcessorEvents: readmodels.NewProcessorEvents(pool),
		SplitChain: s.splitOps, SplitOperator: s.splitSender, Deposits: s.deposits.addresses, PaymentWindow: cfg.PaymentWindow,
		ChainTransactions: chainTransactions(cfg, s.rpc), Outbox: s.outbox, Webhooks: s.dispatcher,
		Prices: readmodels.NewPrices(pool), Usage: s.usage, Figures: readmodels.NewReceipts(pool), Metrics: s.metrics, ReceiptSearch: readmodels.NewReceipts(pool),
		Invalidations: s.caches, Users: readmodels.NewUsers(pool).KeepTopInMemory(s.caches),
		Plans: readmodels.NewPlans(pool), SubscriptionLists: readmodels.NewSubscriptions(pool),
		SubscriptionsView: s.subscriptionsRunner,
		SubscriptionChain: s.subChain,
		WebhookEndpoints:  s.endpoints, EndpointSender: s.dispatcher,
		Config: transport.Config{
			GatewayMode: cfg.AuthMode == "gateway", EdgeSecret: cfg.EdgeSecret, JWTSecret: cfg.JWTSecret,
			CronSecret: cfg.CronSecret, AdminWallets: cfg.AdminWallets, Production: cfg.production(),
			KeyLimitPerMinute: cfg.RateLimitPerMinute, PublicLimitPerMinute: cfg.RateLimitPublicPerMinute,
			PlatformRecipient: strings.ToLower(cfg.PlatformRecipient), SiteConfigRequiresKey: cfg.SiteConfigRequiresKey,
			ProcessorWebhookSecret: cfg.ProcessorWebhookSecret, PublicBaseURL: cfg.PublicBaseURL, MetricsToken: cfg.MetricsToken,
			MetricsSeparate: cfg.MetricsAddr != "", TrustedProxies: cfg.TrustedProxies, KeyCacheTTL: cfg.KeyCacheTTL,
			PaymentChain: paymentChain(cfg),
		},
	})
}

// startWorkers runs every background worker in its own goroutine until stop, which cancels them
// and waits for all of them to return.
func startWorkers(cfg config, s *services, api *transport.Server, log zerolog.Logger) (stop func()) {
	workCtx, stopWork := context.WithCancel(context.Background())
	var workers sync.WaitGroup
	for _, w := range s.workers(cfg, api, log) {
		workers.Go(func() {
			if err := w.Run(workCtx); err != nil && !errors.Is(err, context.Canceled) {
				log.Error().Err(err).Msg("background worker stopped")
			}
		})
	}
	return func() { stopWork(); workers.Wait() }
}

// workers are serve's background jobs: projectors, the onramp reconciler, webhook dispatch, usage,
// journal replay, cache invalidations, wallet verification, split distribution and subscription
// charging.
func (s *services) workers(cfg config, api *transport.Server, log zerolog.Logger) []worker {
	reconciler := commands.NewReconciler(api.OnrampReconciliation(), s.dispatcher, 30*time.Second, 2*time.Minute, log)
	return []worker{s.receiptsRunner, s.usersRunner, s.subscriptionsRunner, reconciler, s.dispatcher, s.usage,
		workerFunc(func(ctx context.Context) error { return s.replayer.Run(ctx, 2*time.Second) }), workerFunc(s.caches.Run),
		walletVerifier(cfg, s.rpc, s.store, readmodels.NewReceipts(s.pool), log),
		splitDistributor(cfg, s.store, readmodels.NewReceipts(s.pool), s.splitOps, s.splitSender, log),
		subscriptionTicker(s.subChain.Charger, s.subscriptionsRunner, s.pool, s.webhookKeys, s.dispatcher, log), s.deposits.worker}
}
