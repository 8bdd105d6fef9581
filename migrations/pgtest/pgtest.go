// Package pgtest gives tests a fresh, migrated PostgreSQL database that is dropped afterwards.
// It talks to the real server at PAYLEDGER_TEST_DATABASE_URL (default: the local trust-auth
// server); tests never mock PostgreSQL.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payledger/payledger/internal/pgarrays"
	"github.com/payledger/payledger/migrations"
)

// DefaultURL is the server tests use when PAYLEDGER_TEST_DATABASE_URL is unset.
const DefaultURL = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"

// Server is the PostgreSQL server tests create their databases on: PAYLEDGER_TEST_DATABASE_URL,
// or DefaultURL when it is unset.
func Server() string {
	if base := os.Getenv("PAYLEDGER_TEST_DATABASE_URL"); base != "" {
		return base
	}
	return DefaultURL
}

// URL creates a fresh migrated database, registers its removal with tb.Cleanup and returns its URL.
func URL(tb testing.TB) string {
	tb.Helper()
	base := Server()
	u, err := url.Parse(base)
	if err != nil {
		tb.Fatalf("pgtest: parse %q: %v", base, err)
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "payledger_test_" + hex.EncodeToString(b[:])
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		tb.Fatalf("pgtest: connect to %s (is PostgreSQL running?): %v", u.Redacted(), err)
	}
	defer admin.Close(context.Background())
	tmpl, err := ensureTemplate(ctx, admin, u)
	if err != nil {
		tb.Fatalf("pgtest: %v", err)
	}
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name+" TEMPLATE "+tmpl); err != nil {
		tb.Fatalf("pgtest: create database: %v", err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c, err := pgx.Connect(ctx, base)
		if err != nil {
			tb.Logf("pgtest: drop %s: %v", name, err)
			return
		}
		defer c.Close(context.Background())
		if _, err := c.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			tb.Logf("pgtest: drop %s: %v", name, err)
		}
	})
	u.Path = "/" + name
	return u.String()
}

// ensureTemplate returns the name of a database holding every migration, creating it once per
// set of migrations (named by their fingerprint): copying it is a file copy, where applying the
// migrations to each test's database cost most of a database test's set-up. Processes that start
// together are serialised by an advisory lock; the template is built under another name and
// renamed, so a half-built one is never copied.
func ensureTemplate(ctx context.Context, admin *pgx.Conn, server *url.URL) (string, error) {
	fp, err := migrations.Fingerprint()
	if err != nil {
		return "", err
	}
	name := "payledger_tmpl_" + fp[:16]
	if _, err := admin.Exec(ctx, "SELECT pg_advisory_lock(hashtext($1))", name); err != nil {
		return "", fmt.Errorf("lock template: %w", err)
	}
	defer func() { _, _ = admin.Exec(context.Background(), "SELECT pg_advisory_unlock(hashtext($1))", name) }()
	var exists bool
	if err := admin.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		return "", fmt.Errorf("look up template: %w", err)
	}
	if exists {
		return name, nil
	}
	building := name + "_building"
	if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+building+" WITH (FORCE)"); err != nil {
		return "", fmt.Errorf("drop half-built template: %w", err)
	}
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+building); err != nil {
		return "", fmt.Errorf("create template: %w", err)
	}
	b := *server
	b.Path = "/" + building
	if err := migrations.Apply(ctx, b.String()); err != nil {
		return "", err
	}
	if _, err := admin.Exec(ctx, "ALTER DATABASE "+building+" RENAME TO "+name); err != nil {
		return "", fmt.Errorf("name template: %w", err)
	}
	return name, nil
}

// Pool returns a pool on a fresh migrated database, closed and dropped when tb ends.
func Pool(tb testing.TB) *pgxpool.Pool {
	tb.Helper()
	return PoolFor(tb, URL(tb))
}

// PoolFor opens a pool on databaseURL and closes it when tb ends.
func PoolFor(tb testing.TB, databaseURL string) *pgxpool.Pool {
	tb.Helper()
	cfg, err := pgxpool.ParseConfig(databaseURL)
	if err != nil {
		tb.Fatalf("pgtest: parse %s: %v", databaseURL, err)
	}
	cfg.AfterConnect = pgarrays.AfterConnect // as serve's pools
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		tb.Fatalf("pgtest: open pool: %v", err)
	}
	tb.Cleanup(pool.Close)
	return pool
}

// OpenTransaction begins a transaction on pool that holds a transaction id and stays open until
// the caller rolls it back, or tb ends: an older transaction that may still commit, which the
// log's read horizon must wait for (or, in another database, must not).
func OpenTransaction(tb testing.TB, pool *pgxpool.Pool) pgx.Tx {
	tb.Helper()
	ctx := context.Background()
	tx, err := pool.Begin(ctx)
	if err != nil {
		tb.Fatalf("pgtest: begin: %v", err)
	}
	tb.Cleanup(func() { _ = tx.Rollback(ctx) })
	if _, err := tx.Exec(ctx, `SELECT pg_current_xact_id()`); err != nil {
		tb.Fatalf("pgtest: take a transaction id: %v", err)
	}
	return tx
}
