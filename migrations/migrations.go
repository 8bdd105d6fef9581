// Package migrations holds the SQL schema as numbered files, embedded in the binary and applied
// in order, each in its own transaction, with the applied version recorded in schema_version.
package migrations

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/tern/v2/migrate"
)

//go:embed *.sql
var files embed.FS

// Apply brings the database at databaseURL up to the newest migration. Concurrent callers are
// serialised by an advisory lock, so several processes may start at once.
func Apply(ctx context.Context, databaseURL string) error {
	return ApplyWaiting(ctx, databaseURL, nil)
}

// ApplyWaiting is Apply, calling waiting (when not nil) if another process holds the migrations'
// lock, before it waits for it: an instance started while another applied a long migration (an
// index on a large log) waited for minutes without a word.
func ApplyWaiting(ctx context.Context, databaseURL string, waiting func()) error {
	conn, err := connect(ctx, databaseURL)
	if err != nil {
		return fmt.Errorf("migrate: connect: %w", err)
	}
	defer conn.Close(context.Background()) // also releases the lock
	if err := lockMigrations(ctx, conn, waiting); err != nil {
		return fmt.Errorf("migrate: lock: %w", err)
	}
	m, err := migrate.NewMigrator(ctx, conn, "schema_version")
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	if err := m.LoadMigrations(files); err != nil {
		return fmt.Errorf("migrate: load: %w", err)
	}
	if err := m.Migrate(ctx); err != nil {
		// A newer payledger migrated past this binary's last migration (tern refuses a current
		// version it does not know): a rolling upgrade in progress, or a rollback.
		if v, verr := m.GetCurrentVersion(ctx); verr == nil && int(v) > len(m.Migrations) {
			return fmt.Errorf("migrate: %w: it is at version %d, this binary's last migration is %d", ErrNewerSchema, v, len(m.Migrations))
		}
		return fmt.Errorf("migrate: %w", err)
	}
	return nil
}

// ternLock is tern's migration lock (its unexported lockNum). Taken here first, it is held
// across tern's own takings of it (a session's advisory locks stack) until the connection closes.
const ternLock = int64(9628173550095224)

// lockMigrations takes the migrations' lock on conn, calling waiting first when another session
// holds it.
func lockMigrations(ctx context.Context, conn *pgx.Conn, waiting func()) error {
	var got bool
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, ternLock).Scan(&got); err != nil || got {
		return err
	}
	if waiting != nil {
		waiting()
	}
	_, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, ternLock)
	return err
}

// ErrNewerSchema is Apply's error when a newer payledger has migrated the database past this
// binary's migrations: nothing was applied. Instances of the previous release keep running on
// the new schema during a rolling upgrade (migrations are written for that), so serve starts on
// it with a warning rather than failing every restart of an older instance, and every instance
// of a rollback.
var ErrNewerSchema = errors.New("the database's schema is newer than this binary's migrations")

// EnsureDatabase creates the database named in databaseURL if it does not exist, connecting to
// the server's "postgres" database to do so. It connects to the database itself first: behind a
// pooler (PgBouncer serves the databases it is configured for) or with a role allowed only its
// own database, the "postgres" database does not answer, and serve could not start at all.
func EnsureDatabase(ctx context.Context, databaseURL string) error {
	u, err := url.Parse(databaseURL)
	if err != nil {
		return fmt.Errorf("parse database url: %w", err)
	}
	name := strings.TrimPrefix(u.Path, "/")
	if name == "" {
		return errors.New("database url names no database")
	}
	own, err := connect(ctx, databaseURL)
	if err == nil {
		_ = own.Close(ctx)
		return nil
	}
	var missing *pgconn.PgError
	if !errors.As(err, &missing) || missing.Code != "3D000" { // invalid_catalog_name: it does not exist
		return fmt.Errorf("connect to database %q: %w", name, err)
	}
	admin := *u
	admin.Path = "/postgres"
	conn, err := connect(ctx, admin.String())
	if err != nil {
		return fmt.Errorf("connect to create database %q: %w", name, err)
	}
	defer conn.Close(context.Background())
	var exists bool
	if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, name).Scan(&exists); err != nil {
		return fmt.Errorf("look up database %q: %w", name, err)
	}
	if exists {
		return nil
	}
	_, err = conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize())
	// Created meanwhile by another process: 42P04 when it committed before this one began, the
	// catalog's unique violation (23505) when both were creating it at once (instances started
	// together on a new server).
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && (pgErr.Code == "42P04" || pgErr.Code == "23505" && pgErr.ConstraintName == "pg_database_datname_index") {
		return nil
	}
	if err != nil {
		return fmt.Errorf("create database %q: %w", name, err)
	}
	return nil
}

// connectTimeout bounds each attempt to connect (dial and start-up) unless the URL sets
// connect_timeout: a server that accepts the connection and never answers (hung, or a proxy in
// front of a stopped one) held serve's start for ever, without a line.
const connectTimeout = 10 * time.Second

// connect opens a connection to databaseURL within connectTimeout.
func connect(ctx context.Context, databaseURL string) (*pgx.Conn, error) {
	cfg, err := pgx.ParseConfig(databaseURL)
	if err != nil {
		return nil, err
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = connectTimeout
	}
	return pgx.ConnectConfig(ctx, cfg)
}

// Fingerprint is a digest of every embedded migration's name and text: two binaries with the
// same fingerprint build the same schema (the test helper keys its template database on it).
func Fingerprint() (string, error) {
	entries, err := files.ReadDir(".")
	if err != nil {
		return "", fmt.Errorf("migrations: list: %w", err)
	}
	h := sha256.New()
	for _, e := range entries { // ReadDir sorts by name
		b, err := files.ReadFile(e.Name())
		if err != nil {
			return "", fmt.Errorf("migrations: read %s: %w", e.Name(), err)
		}
		fmt.Fprintf(h, "%s\x00%d\x00", e.Name(), len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
