package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	_ "net/http/pprof" // served only on PPROF_ADDR
	"os"
	"runtime/debug"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/labstack/echo/v4"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/cmd/payledger/app/web"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/esdb"
	"github.com/payledger/payledger/eventstore/journal"
	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/internal/pgarrays"
	"github.com/payledger/payledger/migrations"
	"github.com/payledger/payledger/transport"
	"github.com/payledger/payledger/transport/ratelimit"
)

// embeddedDataDir is where `make run` keeps a private PostgreSQL cluster when none answers.
const embeddedDataDir = ".data/pg"

// prepareDatabase makes sure PostgreSQL answers (starting a private cluster if allowed), the
// database exists and migrations are applied. stop, when not nil, stops the private cluster.
func prepareDatabase(ctx context.Context, cfg config, log zerolog.Logger) (stop func(), err error) {
	if cfg.EmbeddedPostgres {
		if stop, err = ensurePostgres(ctx, cfg.DatabaseURL, embeddedDataDir, log); err != nil {
			return nil, err
		}
	}
	if err := migrations.EnsureDatabase(ctx, cfg.DatabaseURL); err != nil {
		return stop, err
	}
	waiting := func() { log.Info().Msg("another instance is applying migrations: waiting for it to finish") }
	if err := migrations.ApplyWaiting(ctx, cfg.DatabaseURL, waiting); errors.Is(err, migrations.ErrNewerSchema) {
		log.Warn().Err(err).Msg("a newer payledger migrated this database (a rolling upgrade, or a rollback): starting on its schema, nothing migrated")
	} else if err != nil {
		return stop, err
	}
	return stop, nil
}

func migrate(ctx context.Context, cfg config, log zerolog.Logger) error {
	stop, err := prepareDatabase(ctx, cfg, log)
	if stop != nil {
		defer stop()
	}
	if err == nil {
		log.Info().Msg("migrations applied")
	}
	return err
}

// openLedger prepares the database (private cluster, creation, migrations) and opens the pool
// and the configured event store; close releases all three in reverse order.
func openLedger(ctx context.Context, cfg config, log zerolog.Logger) (pool *pgxpool.Pool, store eventstore.Store, close func(), err error) {
	stopDB, err := prepareDatabase(ctx, cfg, log)
	closers := []func(){}
	close = func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	if stopDB != nil {
		closers = append(closers, stopDB)
	}
	if err != nil {
		close()
		return nil, nil, nil, err
	}
	if pool, err = openPool(ctx, cfg); err != nil {
		close()
		return nil, nil, nil, err
	}
	closers = append(closers, pool.Close)
	store, closeStore, err := openStore(cfg, pool)
	if err != nil {
		close()
		return nil, nil, nil, err
	}
	closers = append(closers, closeStore)
	return pool, store, close, nil
}

// openPool opens the database pool with DB_MAX_CONNS connections: pgx's default (4 on a 2-core
// machine) starves 16 concurrent requests plus the projectors.
func openPool(ctx context.Context, cfg config) (*pgxpool.Pool, error) {
	return openPoolAt(ctx, "DATABASE_URL", cfg.DatabaseURL, cfg.DBMaxConns)
}

// openPoolAt opens a pool of maxConns connections on url (the variable named env): the
// primary's, or a replica's.
func openPoolAt(ctx context.Context, env, url string, maxConns int) (*pgxpool.Pool, error) {
	pc, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", env, err)
	}
	pc.MaxConns = int32(maxConns)
	// A datastore that stops answering must turn into quick 503s, not hanging requests.
	pc.ConnConfig.ConnectTimeout = 3 * time.Second
	// Each connection encodes array parameters into a buffer sized for them (issue 38).
	pc.AfterConnect = pgarrays.AfterConnect
	tuneForFailover(pc) // a multi-host URL: follow a new primary promptly
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		return nil, fmt.Errorf("open %s pool: %w", env, err)
	}
	return pool, nil
}

// openLimiter returns the Redis limiter when REDIS_URL is set (limits shared by every instance),
// else the in-process one.
func openLimiter(cfg config) (transport.Limiter, func(), error) {
	if cfg.RedisURL == "" {
		return ratelimit.NewMemory(time.Now), func() {}, nil
	}
	l, client, err := ratelimit.NewRedis(cfg.RedisURL, time.Now)
	if err != nil {
		return nil, nil, err
	}
	return l, func() { _ = client.Close() }, nil
}

func openStore(cfg config, pool *pgxpool.Pool) (eventstore.Store, func(), error) {
	switch cfg.EventStore {
	case "esdb":
		s, err := esdb.Open(cfg.EventStoreURL)
		if err != nil {
			return nil, nil, err
		}
		return s, func() { _ = s.Close() }, nil
	default:
		return postgres.New(pool), func() {}, nil
	}
}

// serveGCPercent is serve's GOGC unless the environment sets one (tuneGC).
const serveGCPercent = 400

// tuneGC sets serve's garbage collector where the environment does not (GOGC, GOMEMLIMIT win).
// The live heap is small (tens of MiB) and every request allocates, so Go's default of a
// collection per doubling spends about an eighth of the service's CPU on collection under load.
// At 400 (issue 38) the load benchmark's serve CPU per order was 4% lower than at 200 in the
// median of three runs side by side (-4%, +2%, -7%: small, within the machine's noise), for a
// peak resident memory of 130-160 MiB (110 at 200); at 800 the heap ran into the soft limit
// (peak 210 MiB), where collections come often again, and it cost more CPU, not less. The soft
// memory limit keeps the process under its 256 MiB budget whatever GOGC allows.
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(serveGCPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(192 << 20)
	}
}

// serve runs the HTTP service until ctx ends, then drains in-flight requests and stops the
// background workers before returning. Deferred closes run in reverse: the workers stop, then the
// limiter, the ledger (event store, pool, private cluster), the chain client, the development
// chain and, last, the journal's lock. A signal during the start stops it (exit 0).
func serve(ctx context.Context, cfg config, base, log zerolog.Logger) (err error) {
	serving := false
	defer func() { err = stoppedDuringStart(ctx, err, serving, log) }()
	// Nothing starts while another serve holds the ports or the journal (`make run` twice): a
	// second instance once started a development chain and moved the shared database's deposits
	// onto it, and ran the workers, before its journal or port refused it.
	if err := checkAddrs(cfg); err != nil {
		return err
	}
	jr, err := journal.Open(cfg.JournalPath)
	if err != nil {
		return err
	}
	// Released last: a successor on the same JOURNAL_PATH starts only after the drain.
	defer jr.Close()
	stopTracing, err := startTracing(ctx, &cfg, log) // OTEL_EXPORTER_OTLP_ENDPOINT; off without it
	if err != nil {
		return err
	}
	defer stopTracing()
	// The development chain first: it sets ETH_RPC_URL and CHAIN_ID (the login's chain) for serve.
	devChain, err := autoDevChain(ctx, &cfg, cfg.DevChain, 8545, log, os.Stdout)
	if err != nil {
		return err
	}
	if devChain != nil {
		defer func() { log.Warn().Msg("development chain stopping: its state is lost"); _ = devChain.Close() }()
	}
	o, closeOpened, err := openAll(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer closeOpened()
	sc, err := serviceConfig(ctx, cfg, o, base, log)
	if err != nil {
		return err
	}
	sc.App.Journal = jr
	logCapabilities(cfg, sc.App, log)
	svc, endService, err := buildUntilEnd(ctx, sc)
	if err != nil {
		return err
	}
	defer endService()
	api, err := svc.Server()
	if err != nil {
		return err
	}
	// The ports are bound before any worker starts: one taken since checkAddrs fails the start
	// with no worker having run.
	ls, err := listen(cfg)
	if err != nil {
		return err
	}
	defer ls.close()
	// Background workers (projectors, processes, dispatchers) run until the HTTP server has drained.
	stopWorkers := startWorkers(svc.Workers(), log)
	defer stopWorkers()
	serving = true
	return runHTTP(ctx, cfg, ls, api.Echo, api.MetricsHandler(), stopWorkers, log)
}

// stoppedDuringStart is serve's outcome err, except that a start cut by the operator's signal
// (ctx ended before serving) is a stop, not a failure: logged, exit 0.
func stoppedDuringStart(ctx context.Context, err error, serving bool, log zerolog.Logger) error {
	if err == nil || serving || ctx.Err() == nil {
		return err
	}
	log.Warn().Err(err).Msg("stopped by a signal during the start")
	return nil
}

// openAll opens what the service is built over: the chain client (nil while the node does not
// answer: the chain workers dial again), the ledger (event store, pool, private cluster), the
// replica's pool (nil without DATABASE_REPLICA_URL) and the rate limiter; close releases them in
// reverse.
func openAll(ctx context.Context, cfg config, log zerolog.Logger) (o opened, close func(), err error) {
	var closers []func()
	release := func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	defer func() {
		if err != nil { // what was opened before the failure
			release()
		}
	}()
	if o.rpc, err = dialChain(ctx, cfg, log); err != nil {
		return opened{}, nil, err
	}
	if o.rpc != nil {
		closers = append(closers, o.rpc.Close)
	}
	pool, store, closeLedger, err := openLedger(ctx, cfg, log)
	if err != nil {
		return opened{}, nil, err
	}
	o.pool, o.store, closers = pool, store, append(closers, closeLedger)
	if pg, ok := store.(*postgres.Store); ok { // never serve on a log restored into another cluster
		if err = pg.CheckHeadStarted(ctx); err != nil {
			return opened{}, nil, err
		}
	}
	replica, closeReplica, err := openReplica(ctx, cfg)
	if err != nil {
		return opened{}, nil, err
	}
	o.replica, closers = replica, append(closers, closeReplica)
	limiter, closeLimiter, err := openLimiter(cfg)
	if err != nil {
		return opened{}, nil, err
	}
	o.limiter, closers = limiter, append(closers, closeLimiter)
	return o, release, nil
}

// buildUntilEnd builds the service (web.Build) on a context that outlives the signal: what the
// service keeps open on it (the exports' pool) closes when end is called, after the drain, so an
// export in flight at the signal still reads. A signal during the build still cancels it.
func buildUntilEnd(ctx context.Context, sc web.Config) (svc *web.Service, end func(), err error) {
	life, end := context.WithCancel(context.WithoutCancel(ctx))
	detach := context.AfterFunc(ctx, end)
	svc, err = web.Build(life, sc)
	if !detach() && err == nil { // the signal came during the build: what it opened is closing
		err = context.Cause(ctx)
	}
	if err != nil {
		end()
		return nil, nil, err
	}
	return svc, end, nil
}

// runHTTP serves on ls until ctx ends or the server fails, then drains in-flight requests and
// only then stops the background workers, which requests still in flight may need.
func runHTTP(ctx context.Context, cfg config, ls *listeners, e *echo.Echo, metricsHandler http.Handler, stopWorkers func(), log zerolog.Logger) error {
	if ls.pprof != nil {
		defer startSide("PPROF_ADDR", ls.pprof, http.DefaultServeMux, 0, log)() // a CPU profile takes its ?seconds
		log.Warn().Str("addr", cfg.PprofAddr).Msg("pprof listening")
	}
	if ls.metrics != nil {
		mux := http.NewServeMux()
		mux.Handle("GET /metrics", metricsHandler)
		defer startSide("METRICS_ADDR", ls.metrics, mux, 30*time.Second, log)()
		log.Info().Str("addr", cfg.MetricsAddr).Msg("metrics listening")
	}
	e.Listener, ls.http = ls.http, nil // the server closes it from now on
	serveErr := make(chan error, 1)
	go func() { serveErr <- e.Start(cfg.HTTPAddr) }()
	log.Info().Str("addr", cfg.HTTPAddr).Str("env", cfg.AppEnv).Str("eventstore", cfg.EventStore).Msg("serving")

	select {
	case err := <-serveErr:
		if !errors.Is(err, http.ErrServerClosed) {
			return fmt.Errorf("http server: %w", err)
		}
	case <-ctx.Done():
		log.Info().Msg("shutting down: draining in-flight requests")
	}
	return drain(e, stopWorkers, log)
}

// drain waits up to drainTimeout for the requests in flight, then stops the workers. Requests
// still running at the deadline are cut (their connections closed, their contexts cancelled)
// before the workers and pools they use stop: left running, they held the process in the pool's
// close for as long as they lasted. A cut drain still exits 1.
func drain(e *echo.Echo, stopWorkers func(), log zerolog.Logger) error {
	shutdownCtx, cancel := context.WithTimeout(context.Background(), drainTimeout)
	defer cancel()
	if err := e.Shutdown(shutdownCtx); err != nil {
		_ = e.Close()
		log.Error().Dur("after", drainTimeout).Msg("requests still in flight at the drain's deadline: cut")
		stopWorkers()
		return fmt.Errorf("drain http server: %w", err)
	}
	stopWorkers()
	log.Info().Msg("stopped")
	return nil
}

// drainTimeout is how long a stop waits for the requests in flight (a variable for a test that
// runs alone: parallel tests never see it changed).
var drainTimeout = 20 * time.Second

// startSide serves h on l (the variable named env), apart from the public listener: the
// profiler (DefaultServeMux, which net/http/pprof registers on; never public) or /metrics, which
// whoever reaches that address may scrape, so the operator keeps it private (DESIGN 9). stop
// closes it.
func startSide(env string, l net.Listener, h http.Handler, writeTimeout time.Duration, log zerolog.Logger) (stop func()) {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, WriteTimeout: writeTimeout}
	go func() {
		if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error().Err(err).Str("listener", env).Msg("side listener stopped")
		}
	}()
	return func() { _ = srv.Close() }
}
