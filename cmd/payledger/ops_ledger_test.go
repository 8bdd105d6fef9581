package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/payledger/payledger/migrations/pgtest"
)

// TestOperatorToolsNeverCreateTheirDatabase: an operator command pointed at a database that does
// not exist (a typo in DATABASE_URL's name) fails naming it, and the database is still absent
// afterwards. `payledger verify` created it, migrated it and answered "ok: 0 events, every hash
// chain holds" with exit 0: an audit of nothing that read as a clean ledger. The read-only
// commands do not migrate an existing database either, and refuse one without the ledger's
// schema the same way.
func TestOperatorToolsNeverCreateTheirDatabase(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	server := pgtest.URL(t) // a migrated ledger; only its server is used below
	wallet := "0x" + strings.Repeat("ef", 20)
	missing := databaseOn(t, server, "payledger_typo_"+randomHex(t))
	for _, args := range [][]string{
		{"verify"},
		{"receipts", "history", "rcpt_x"},
		{"projections", "rebuild", "--all"},
		{"keys", "create", "--wallet", wallet, "--scopes", "receipts:read"},
	} {
		var out, errOut bytes.Buffer
		code := run(ctx, args, toolEnv(t, missing), &out, &errOut)
		if code != 1 || out.Len() != 0 || !strings.Contains(errOut.String(), "does not exist") {
			t.Errorf("%q on a missing database: exit %d, stdout %q, stderr %q", args, code, out.String(), errOut.String())
		}
		if toolDatabaseExists(t, server, missing) {
			t.Fatalf("%q created the database it was pointed at", args)
		}
	}

	// An existing database without the ledger's schema (the server's default one, say).
	empty := databaseOn(t, server, "payledger_empty_"+randomHex(t))
	createDatabase(t, server, empty)
	for _, args := range [][]string{{"verify"}, {"receipts", "history", "rcpt_x"}} {
		var out, errOut bytes.Buffer
		code := run(ctx, args, toolEnv(t, empty), &out, &errOut)
		if code != 1 || out.Len() != 0 || !strings.Contains(errOut.String(), "holds no payledger ledger") {
			t.Errorf("%q on a database without the schema: exit %d, stdout %q, stderr %q", args, code, out.String(), errOut.String())
		}
	}
	conn := connectTo(t, empty)
	var migrated bool
	if err := conn.QueryRow(ctx, `SELECT to_regclass('schema_version') IS NOT NULL`).Scan(&migrated); err != nil || migrated {
		t.Fatalf("a read-only command migrated the database (%v)", err)
	}
}

// toolEnv is an operator command's environment on dbURL, without a private cluster.
func toolEnv(t *testing.T, dbURL string) func(string) string {
	return env(map[string]string{"DATABASE_URL": dbURL, "EMBEDDED_POSTGRES": "off", "DEV_DATA_DIR": t.TempDir()})
}

func randomHex(t *testing.T) string {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b[:])
}

// databaseOn is the URL of database name on server's server; dropped (if made) when t ends.
func databaseOn(t *testing.T, server, name string) string {
	t.Helper()
	u, err := url.Parse(server)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	t.Cleanup(func() {
		if c, err := pgx.Connect(context.Background(), server); err == nil {
			_, _ = c.Exec(context.Background(), "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)")
			_ = c.Close(context.Background())
		}
	})
	return u.String()
}

func createDatabase(t *testing.T, server, dbURL string) {
	t.Helper()
	u, _ := url.Parse(dbURL)
	conn := connectTo(t, server)
	if _, err := conn.Exec(context.Background(), "CREATE DATABASE "+pgx.Identifier{strings.TrimPrefix(u.Path, "/")}.Sanitize()); err != nil {
		t.Fatal(err)
	}
}

func toolDatabaseExists(t *testing.T, server, dbURL string) bool {
	t.Helper()
	u, _ := url.Parse(dbURL)
	var ok bool
	if err := connectTo(t, server).QueryRow(context.Background(), `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`,
		strings.TrimPrefix(u.Path, "/")).Scan(&ok); err != nil {
		t.Fatal(err)
	}
	return ok
}

func connectTo(t *testing.T, dbURL string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close(context.Background()) })
	return conn
}
