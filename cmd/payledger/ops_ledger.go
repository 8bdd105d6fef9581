package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/migrations"
)

// toolAccess is what an operator command may do to the database's schema: the read-only ones
// (verify, receipts history) only read it; the ones that write read models or keys (projections
// rebuild, keys) bring it up to this binary's migrations first, as serve does.
type toolAccess int

const (
	readLedger toolAccess = iota
	migrateLedger
)

// openToolLedger opens the ledger for an operator command. Unlike serve's openLedger it never
// creates the database: a DATABASE_URL naming one that does not exist (a typo, the wrong server)
// made `payledger verify` create it, migrate it and answer "ok: 0 events, every hash chain
// holds" (exit 0), and `receipts history`, `projections rebuild` and `keys create` worked on
// that empty database as if it were the ledger. Now the command fails naming the database.
// With readLedger the schema is not migrated either (an auditor's verify changes nothing) and a
// database that holds no payledger schema is refused the same way. close releases what it opened.
func openToolLedger(ctx context.Context, cfg config, log zerolog.Logger, access toolAccess) (*pgxpool.Pool, eventstore.Store, func(), error) {
	var closers []func()
	closeAll := func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	fail := func(err error) (*pgxpool.Pool, eventstore.Store, func(), error) {
		closeAll()
		return nil, nil, nil, err
	}
	if cfg.EmbeddedPostgres { // development: the private cluster serve keeps under .data, if nothing answers
		stop, err := ensurePostgres(ctx, cfg.DatabaseURL, embeddedDataDir, log)
		if err != nil {
			return fail(err)
		}
		if stop != nil {
			closers = append(closers, stop)
		}
	}
	if err := checkToolDatabase(ctx, cfg.DatabaseURL, access); err != nil {
		return fail(err)
	}
	if access == migrateLedger {
		waiting := func() { log.Info().Msg("another instance is applying migrations: waiting for it to finish") }
		if err := migrations.ApplyWaiting(ctx, cfg.DatabaseURL, waiting); errors.Is(err, migrations.ErrNewerSchema) {
			log.Warn().Err(err).Msg("a newer payledger migrated this database: working on its schema, nothing migrated")
		} else if err != nil {
			return fail(err)
		}
	}
	pool, err := openPool(ctx, cfg)
	if err != nil {
		return fail(err)
	}
	closers = append(closers, pool.Close)
	store, closeStore, err := openStore(cfg, pool)
	if err != nil {
		return fail(err)
	}
	closers = append(closers, closeStore)
	return pool, store, closeAll, nil
}

// toolConnectTimeout bounds the check's connection unless DATABASE_URL sets connect_timeout.
const toolConnectTimeout = 10 * time.Second

// checkToolDatabase connects to the database databaseURL names and refuses it when it does not
// exist or, for readLedger, when it holds no payledger schema. The errors name the database,
// never the URL (it may hold a password).
func checkToolDatabase(ctx context.Context, databaseURL string, access toolAccess) error {
	name := "?"
	if u, err := url.Parse(databaseURL); err == nil {
		name = strings.TrimPrefix(u.Path, "/")
	}
	cc, err := pgx.ParseConfig(databaseURL)
	if err != nil {
		return fmt.Errorf("parse DATABASE_URL: %w", err)
	}
	if cc.ConnectTimeout == 0 {
		cc.ConnectTimeout = toolConnectTimeout
	}
	conn, err := pgx.ConnectConfig(ctx, cc)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "3D000" { // invalid_catalog_name
		return fmt.Errorf("database %q does not exist on the server DATABASE_URL names: check DATABASE_URL "+
			"(operator commands never create a database; payledger migrate or serve does)", name)
	}
	if err != nil {
		return fmt.Errorf("connect to database %q: %w", name, err)
	}
	defer conn.Close(context.Background())
	if access != readLedger {
		return nil
	}
	var schema bool
	if err := conn.QueryRow(ctx, `SELECT to_regclass('schema_version') IS NOT NULL AND to_regclass('events') IS NOT NULL`).Scan(&schema); err != nil {
		return fmt.Errorf("read the schema of database %q: %w", name, err)
	}
	if !schema {
		return fmt.Errorf("database %q holds no payledger ledger (no schema_version or events table): check DATABASE_URL "+
			"(payledger migrate creates the schema)", name)
	}
	return nil
}
