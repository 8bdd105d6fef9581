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
	"github.com/payledger/payledger/cmd/payledger/app/web"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/transport"
	"github.com/payledger/payledger/transport/onramp"
)

// opened are what serve opened before building the service: the chain client (nil while the
// node does not answer), the pool, the replica's pool (nil without DATABASE_REPLICA_URL), the
// event store and the rate limiter.
type opened struct {
	rpc     *chain.RPC
	pool    *pgxpool.Pool
	replica *pgxpool.Pool
	store   eventstore.Store
	limiter transport.Limiter
}

// serviceConfig is the one configuration value serve builds the service from (web.Build): the
// environment's configuration resolved against what serve opened. It builds no part of the
// service; it finds the deposit factory and the chain's senders, which are configuration.
func serviceConfig(ctx context.Context, cfg config, o opened, base, log zerolog.Logger) (web.Config, error) {
	deposits, err := depositAddresses(ctx, cfg, o.rpc, o.pool, o.store, log)
	if err != nil {
		return web.Config{}, err
	}
	splitOps, splitSender, err := splitChain(cfg, o.rpc, o.pool, log)
	if err != nil {
		return web.Config{}, err
	}
	subs := subscriptionChain(cfg, log)
	a := app.Config{Store: o.store, Pool: o.pool, ReplicaPool: o.replica, Now: time.Now, Log: log, SecretsKey: cfg.SecretsKey, JournalPath: cfg.JournalPath,
		Production: cfg.production(), PlatformRecipient: strings.ToLower(cfg.PlatformRecipient),
		Subscriptions: subs, Deposits: deposits, PaymentWindow: cfg.PaymentWindow, PaymentMonitorWindow: cfg.PaymentMonitorWindow,
		PaymentLateWatch: cfg.PaymentLateWatch, SweepFailedMinCents: cfg.SweepFailedMinCents, Tracer: cfg.tracer,
		ExportMaxConcurrent: cfg.ExportMaxConcurrent,
		Chain: app.Chain{RPC: o.rpc, Tokens: cfg.ChainTokens, Confirmations: cfg.ChainConfirmations, LogRange: uint64(cfg.ChainLogRange), Operator: splitOps, SplitOperator: splitSender,
			Transactions: chainTransactions(cfg, o.rpc)}}
	if op := chargeOperator(cfg, subs, o.rpc, log); op != nil {
		a.Chain.ChargeOperator = op
	}
	if cfg.EthRPCURL != "" {
		a.Chain.Dial = func(ctx context.Context, waiting string) (*chain.RPC, error) {
			return dialUntilAnswered(ctx, cfg, log, waiting)
		}
	}
	if cfg.ProcessorAPIURL != "" {
		a.Processor = onramp.New(cfg.ProcessorAPIURL, cfg.ProcessorAPIKey)
	}
	return web.Config{App: a, Limiter: o.limiter, LoginChainID: cfg.ChainID, Log: base, IdempotencyMaxKept: cfg.IdempotencyMaxKept, HTTP: transport.Config{
		GatewayMode: cfg.AuthMode == "gateway", EdgeSecret: cfg.EdgeSecret, JWTSecret: cfg.JWTSecret,
		CronSecret: cfg.CronSecret, AdminWallets: cfg.AdminWallets, Production: cfg.production(),
		KeyLimitPerMinute: cfg.RateLimitPerMinute, PublicLimitPerMinute: cfg.RateLimitPublicPerMinute,
		SiteConfigRequiresKey:  cfg.SiteConfigRequiresKey,
		ProcessorWebhookSecret: cfg.ProcessorWebhookSecret, PublicBaseURL: cfg.PublicBaseURL, MetricsToken: cfg.MetricsToken,
		MetricsSeparate: cfg.MetricsAddr != "", TrustedProxies: cfg.TrustedProxies, KeyCacheTTL: cfg.KeyCacheTTL,
		PaymentChain: paymentChain(cfg), ExportTimeout: cfg.ExportTimeout,
		SubscriptionCreatesPerHour: cfg.RateLimitSubscriptionCreatePerHour, // subscriptions_limit.go
		SplitDeploysPerHour:        cfg.RateLimitSplitDeployPerHour,        // split_deploy_limit.go
		SplitDeployBudgetPerHour:   cfg.RateLimitSplitDeployBudgetPerHour,
	}}, nil
}

// logCapabilities logs the one "capabilities" line (DESIGN 10): each optional capability, on or
// off, and why.
func logCapabilities(cfg config, c app.Config, log zerolog.Logger) {
	ev := log.Info()
	say := func(name string, on bool, why string) {
		state := "off: "
		if on {
			state = "on: "
		}
		ev = ev.Str(name, state+why)
	}
	for _, capability := range c.Capabilities() {
		say(capability.Name, capability.On, capability.Why)
	}
	if cfg.RedisURL != "" {
		say("redis_limits", true, "REDIS_URL is set: rate limits are shared by every instance")
	} else {
		say("redis_limits", false, "REDIS_URL is unset: per-minute rate limits are counted per instance, the hourly bounds in the database for every instance")
	}
	if cfg.MetricsAddr != "" {
		say("metrics_addr", true, "/metrics is served on METRICS_ADDR "+cfg.MetricsAddr)
	} else {
		say("metrics_addr", false, "METRICS_ADDR is unset: /metrics is on the public listener")
	}
	ev.Msg("capabilities")
}

// startWorkers runs every background worker in its own goroutine until stop, which cancels them
// and waits for all of them to return. It is the one place background processes start.
func startWorkers(workers []app.Worker, log zerolog.Logger) (stop func()) {
	workCtx, stopWork := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for _, w := range workers {
		wg.Go(func() {
			if err := w.Run(workCtx); err != nil && !errors.Is(err, context.Canceled) {
				log.Error().Err(err).Msg("background worker stopped")
			}
		})
	}
	return func() { stopWork(); wg.Wait() }
}
