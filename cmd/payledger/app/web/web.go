// Package web fills the HTTP layer's dependencies (transport.Deps) from the service that
// cmd/payledger/app builds: the one place they are filled, for `payledger serve` and for every
// test. It is a package of its own because transport's internal tests build their server through
// it: they import app (which must not import transport, or they could not), and reach this
// package through an external test file (transport/app_test.go), as Go allows.
package web

import (
	"cmp"
	"context"
	"errors"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/cmd/payledger/app"
	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/docs"
	"github.com/payledger/payledger/readmodels"
	"github.com/payledger/payledger/transport"
	"github.com/payledger/payledger/transport/dashboard"
	"github.com/payledger/payledger/transport/portal"
)

// Config is the one configuration value the service is built from: the application's and the
// HTTP layer's.
type Config struct {
	App  app.Config
	HTTP transport.Config
	// Limiter counts requests against the rate limits (Redis when REDIS_URL is set).
	Limiter transport.Limiter
	// LoginChainID is the chain of the admins' sign-in messages (CHAIN_ID).
	LoginChainID int64
	// Log is the requests' base logger (the application's is App.Log).
	Log zerolog.Logger
	// IdempotencyMaxKept bounds each merchant's kept Idempotency-Key answers in 24 h
	// (IDEMPOTENCY_MAX_KEPT; zero: readmodels.MaxKeptAnswers).
	IdempotencyMaxKept int
}

// Service is the built service with its HTTP dependencies.
type Service struct {
	*app.Service
	Metrics *transport.Metrics
	// HTTP are the HTTP layer's dependencies; a test may replace one of them (a fault-injecting
	// wrapper) before Server.
	HTTP transport.Deps
}

// Build builds the service (app.Build) and fills the HTTP layer's dependencies from it.
func Build(ctx context.Context, cfg Config) (*Service, error) {
	if cfg.Limiter == nil {
		return nil, errors.New("web: Limiter is required")
	}
	openapi, err := docs.OpenAPIJSON()
	if err != nil {
		return nil, err
	}
	metrics := transport.NewMetrics(readmodels.NewOps(cfg.App.Pool))
	cfg.App.Metrics = metrics
	svc, err := app.Build(ctx, cfg.App)
	if err != nil {
		return nil, err
	}
	cfg.HTTP.ExportMaxConcurrent = svc.Exports.MaxConns() // one budget: the pool's and the route's
	cfg.HTTP.OnrampConfigured = cfg.App.Processor != nil
	return &Service{Service: svc, Metrics: metrics, HTTP: deps(cfg, svc, metrics, openapi)}, nil
}

// deps are the HTTP layer's dependencies: the application's handlers, queries, projections and
// caches, and the read models the routes read and write.
func deps(cfg Config, s *app.Service, metrics *transport.Metrics, openapi []byte) transport.Deps {
	pool, now := s.Config.Pool, s.Config.Now
	aggregates, hist := commands.NewAggregates(s.Events), histories{s.Events}
	receipts, shops, plans, subs := readmodels.NewReceipts(pool), readmodels.NewShops(pool), readmodels.NewPlans(pool), readmodels.NewSubscriptions(pool)
	prices := readmodels.NewPrices(pool)
	d := transport.Deps{
		OpenAPIJSON: openapi, Log: cfg.Log, DB: pool, Now: now, Config: cfg.HTTP, Health: s.Health,
		Keys: s.Keys, Nonces: readmodels.NewNonces(pool), Sessions: readmodels.NewSessions(pool),
		Signer: chain.Login{ChainID: cfg.LoginChainID, URI: chain.LoginURI(cfg.HTTP.PublicBaseURL)},
		// The hourly bounds hold for every instance: in Redis while it answers, else in the
		// database (transport.SharedHours), on the service's clock as every other limit (serve's
		// time.Now; a test's fake clock moves them too); the per-minute limits stay cfg.Limiter's.
		Limiter:  transport.SharedHours(cfg.Limiter, readmodels.NewHourlyBounds(pool, now)),
		Commands: s.Commands, Splits: s.Queries.Splits, Journaled: s.Queries.Journaled, Charger: s.Processes.Charger,
		Aggregates: aggregates, Histories: hist, Shops: shops, Sites: readmodels.NewSites(pool),
		Inventory: readmodels.NewInventory(pool), Receipts: receipts, ReceiptsView: s.Projections.Receipts,
		Outbox: s.Outbox, Webhooks: s.Dispatcher,
		Prices: prices, Usage: s.Usage, Figures: receipts, Metrics: metrics,
		Invalidations: s.Invalidations, PricingCache: s.Caches.Pricing, InventoryCache: s.Caches.Inventory,
		Users: readmodels.NewUsers(pool).KeepTopInMemory(s.Invalidations),
		Plans: plans, SubscriptionLists: subs,
		SubscriptionsView: s.Projections.Subscriptions,
		WebhookEndpoints:  s.Endpoints, EndpointSender: s.Dispatcher,
		Idempotent: readmodels.NewIdempotentResponses(pool, s.WebhookKeys).
			WithBound(cmp.Or(cfg.IdempotencyMaxKept, readmodels.MaxKeptAnswers), readmodels.MaxKeptBytes),
		Exports: s.Exports, Tracer: cfg.App.Tracer, Off: s.Config.CapabilitiesOff(),
		SplitBudget: readmodels.NewSplitBudget(pool),
	}
	dash := dashboard.Deps{Receipts: receipts, Search: receipts, Histories: hist, Deliveries: s.Outbox,
		Splits: aggregates, Keys: s.Keys, Endpoints: s.Endpoints, Figures: receipts, Shops: shops, Plans: plans, Subscriptions: subs}
	page := portal.Deps{Receipts: receipts, States: aggregates, Shops: shops, Prices: prices}
	d.Mounts = []transport.Mount{
		func(srv *transport.Server) error { return portal.Mount(srv, page) },
		func(srv *transport.Server) error { return dashboard.Mount(srv, dash) },
	}
	if s.Replica != nil { // not a typed nil in the interface: nil means every read on the primary
		d.Replica = s.Replica
	}
	return d
}

// histories reads a receipt's audited history from the event store (GET /api/receipts/{id}/events
// and the dashboard's receipt page).
type histories struct{ store commands.Store }

func (h histories) ReceiptHistory(ctx context.Context, id, merchant string) (commands.History, error) {
	return commands.ReceiptHistory(ctx, h.store, id, merchant)
}

// Server builds the HTTP server on the service's dependencies.
func (s *Service) Server() (*transport.Server, error) { return transport.New(s.HTTP) }
