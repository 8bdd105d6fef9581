package app

import (
	"cmp"
	"context"
	"errors"
	"time"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/eventstore/journal"
	"github.com/payledger/payledger/internal/cache"
	"github.com/payledger/payledger/internal/secrets"
	"github.com/payledger/payledger/readmodels"
	"github.com/payledger/payledger/webhooks"
)

// Service is everything `payledger serve` runs, built once by Build from one Config: the
// application (use cases, projections, processes) and the infrastructure around it (read
// models, webhook dispatch, the journal), with the list of background workers and their health.
// The HTTP layer's dependencies are filled from it in one place (app/web).
type Service struct {
	*Application
	Config Config
	Health *Health

	WebhookKeys *secrets.WebhookKeys
	Outbox      *readmodels.Outbox
	Keys        *readmodels.Keys
	Usage       *readmodels.Usage
	Endpoints   *readmodels.Endpoints
	Exports     *readmodels.Exports // on a pool of their own (Config.ExportMaxConcurrent)
	Dispatcher  *webhooks.Dispatcher
	Journal     *journal.Journal
	Replayer    *journal.Replayer
	// Replica chooses the pool of each stale-tolerant read (nil without Config.ReplicaPool).
	Replica *readmodels.ReplicaReads

	workers []Worker
}

// replayInterval is the pace of the journal's replay into the event store.
const replayInterval = 2 * time.Second

// Build builds the service from cfg in its start-up order: the read models and the webhook
// dispatcher, the journal, the exports' pool (closed when ctx ends), the application over them, the journal's replayer (orders accepted
// before a crash go in before the service listens: a failed replay is only a warning, the
// replay worker retries it), then the workers.
func Build(ctx context.Context, cfg Config) (*Service, error) {
	if cfg.Store == nil || cfg.Pool == nil || cfg.Now == nil || cfg.Metrics == nil || (cfg.JournalPath == "" && cfg.Journal == nil) {
		return nil, errors.New("app: Store, Pool, Now, Metrics and JournalPath (or Journal) are required")
	}
	s := &Service{Config: cfg, Health: NewHealth(cfg.Now, cfg.Log)}
	in, err := s.openInfra(cfg)
	if err != nil {
		return nil, err
	}
	built := false
	defer func() {
		if !built { // the journal's lock goes with a failed start (serve's caller may try again)
			_ = s.Journal.Close()
		}
	}()
	// Slow readers hold an export's connection for as long as they read: never the API's.
	if s.Exports, err = readmodels.OpenExports(ctx, cfg.Pool, cmp.Or(cfg.ExportMaxConcurrent, readmodels.DefaultExportMaxConcurrent)); err != nil {
		return nil, err
	}
	if s.Application, err = newApplication(cfg, in, s.Health); err != nil {
		return nil, err
	}
	s.Invalidations = in.invalidations
	// The replay appends through the commands' pipeline, into the same write store as every order.
	s.Replayer = journal.NewReplayer(s.Journal, commands.NewJournalReplay(s.Events, s.WebhookKeys), readmodels.Unavailable, cfg.Log)
	cfg.Metrics.ObserveJournal(func() (pending, failing int64, failures uint64) {
		st := s.Replayer.Stats()
		return st.Pending, st.Failing, st.Failures
	})
	if _, err := s.Replayer.DrainOnce(ctx); err != nil {
		cfg.Log.Warn().Err(err).Msg("journal replay at start; will retry in the background")
	}
	s.workers = s.buildWorkers()
	built = true
	return s, nil
}

// openInfra opens the read models, the in-process caches' invalidations, the webhook dispatcher
// and the journal.
func (s *Service) openInfra(cfg Config) (infra, error) {
	var err error
	if s.WebhookKeys, err = secrets.NewWebhookKeys(cfg.Pool, cfg.SecretsKey); err != nil {
		return infra{}, err
	}
	s.Outbox = readmodels.NewOutbox(cfg.Pool)
	s.Keys = readmodels.NewKeys(cfg.Pool)
	// In-process caches (keys, status reads, inventory, pricing) stay honest through NOTIFYs.
	invalidations := cache.NewInvalidations(cfg.Pool)
	invalidations.Log = cfg.Log.With().Str("component", "cache invalidations").Logger()
	invalidations.Register(readmodels.RevokedChannel, s.Keys.Cache())
	s.Usage = readmodels.NewUsage(cfg.Pool, cfg.Now)
	s.Endpoints = readmodels.NewEndpoints(cfg.Pool, s.WebhookKeys)
	// The dispatcher keeps the wall clock, not cfg.Now: the outbox's due times are compared with
	// the database's now() and its signed timestamps with the receivers' clocks (on a test's
	// clock, retries came at once or never). A test sets its own through Dispatch.
	d := &webhooks.Dispatcher{Outbox: s.Outbox, Keys: s.WebhookKeys, Events: cfg.Store,
		Log: cfg.Log, Production: cfg.Production, Metrics: cfg.Metrics, Endpoints: s.Endpoints, Tracer: cfg.Tracer}
	if cfg.ReplicaPool != nil {
		s.Replica = readmodels.NewReplicaReads(cfg.Pool, cfg.ReplicaPool, cfg.Now, cfg.Log.With().Str("component", "replica").Logger())
		// A merchant told of a status by a webhook reads what it was told, as after its own write.
		d.Telling = func(merchant string) { s.Replica.Wrote(readmodels.WalletCaller(merchant)) }
	}
	if cfg.Dispatch != nil {
		cfg.Dispatch(d)
	}
	s.Dispatcher = d.Init()
	if s.Journal = cfg.Journal; s.Journal == nil {
		if s.Journal, err = journal.Open(cfg.JournalPath); err != nil {
			return infra{}, err
		}
	}
	return infra{dispatcher: s.Dispatcher, invalidations: invalidations, webhookKeys: s.WebhookKeys, journal: s.Journal}, nil
}

// buildWorkers lists every background worker, each reporting to Health: the projections, the
// settlement processes whose capability is on, webhook dispatch, usage, journal replay, the
// caches' invalidations, and the health monitor itself. A new worker goes here.
func (s *Service) buildWorkers() []Worker {
	h, p, proj := s.Health, s.Processes, s.Projections
	list := []Worker{
		h.Watch("receipts projection", proj.Receipts), h.Watch("users projection", proj.Users),
		h.Watch("subscriptions projection", proj.Subscriptions), h.Watch("receipt.created projection", proj.ReceiptCreated),
		h.Watch("onramp reconciliation", p.OnrampReconciler),
		p.SplitDistributor, p.PaymentWindow, p.DepositSweeper, p.DepositDetector, p.PaymentHints, p.RefundVerifier,
		h.Watch("webhook dispatch", s.Dispatcher), h.Watch("usage", s.Usage),
		h.Every("journal replay", replayInterval, func(ctx context.Context) (bool, error) {
			_, err := s.Replayer.DrainOnce(ctx)
			return true, err
		}),
		h.Watch("cache invalidations", s.Invalidations), // Failing: a listener that does not hear its probe
		// The merchants' event log and its deliveries are kept 30 days (stop 67); Now stays unset:
		// the pruning compares with the database's clock.
		h.Every("webhook retention", webhooks.RetentionInterval, (&webhooks.Retention{Endpoints: s.Endpoints, Outbox: s.Outbox,
			Subscriptions: readmodels.NewSubscriptionWebhooks(s.Config.Pool),
			Log:           s.Config.Log.With().Str("component", "webhook retention").Logger()}).Step),
		h.Monitor(),
	}
	if p.SubscriptionCharging != nil {
		list = append(list, h.Watch(chargingWorker, p.SubscriptionCharging))
		h.LeadsWhen(chargingWorker, proj.Subscriptions.Leader) // the daily run is the subscriptions projector leader's
	}
	if s.Replica != nil { // probes the replica's health and lag: until it answers, reads stay on the primary
		list = append(list, h.Every("replica probe", readmodels.ProbeInterval, s.Replica.Probe)) // down or behind for long: stuck in /healthz
	}
	out := list[:0]
	for _, w := range list {
		if w != nil {
			out = append(out, w)
		}
	}
	return out
}

// Workers are the service's background jobs; serve runs each until it stops.
func (s *Service) Workers() []Worker { return s.workers }
