package main

import (
	"context"
	"strings"
	"testing"

	"github.com/payledger/payledger/migrations/pgtest"
)

// TestServeStartsOnANewerSchema: a database migrated by a newer payledger (a rolling upgrade in
// progress, or a rollback) failed every start of this binary ("current version 39 is outside the
// valid versions of 0 to 38"), so each older instance that restarted, and every instance of a
// rollback, stayed down. serve starts on it, says so, and migrates nothing.
func TestServeStartsOnANewerSchema(t *testing.T) {
	t.Parallel()
	dbURL := pgtest.URL(t)
	pool := pgtest.PoolFor(t, dbURL)
	var newer int
	if err := pool.QueryRow(context.Background(), `UPDATE schema_version SET version = version + 1 RETURNING version`).Scan(&newer); err != nil {
		t.Fatal(err)
	}
	_, out := startServe(t, map[string]string{"DATABASE_URL": dbURL, "DEVCHAIN": "off"})
	if !strings.Contains(out.String(), "a newer payledger migrated this database") {
		t.Fatalf("no word of the newer schema:\n%s", out.String())
	}
	var v int
	if err := pool.QueryRow(context.Background(), `SELECT version FROM schema_version`).Scan(&v); err != nil || v != newer {
		t.Fatalf("schema version %d (%v), want %d", v, err, newer)
	}
}
