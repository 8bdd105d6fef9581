package main

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/payledger/payledger/migrations/pgtest"
)

// A DATABASE_URL may reach a local server through its Unix socket (host=/var/run/postgresql, as
// libpq allows); the failover tuning's TCP options must not fail that dial.
func TestPoolOpensOverUnixSocket(t *testing.T) {
	const dir = "/var/run/postgresql"
	if _, err := os.Stat(filepath.Join(dir, ".s.PGSQL.5432")); err != nil {
		t.Skipf("no PostgreSQL socket in %s: %v", dir, err)
	}
	tcp, err := url.Parse(pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	unix := url.URL{Scheme: "postgres", User: tcp.User, Path: tcp.Path,
		RawQuery: url.Values{"host": {dir}, "sslmode": {"disable"}}.Encode()}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	pool, err := openPoolAt(ctx, "DATABASE_URL", unix.String(), 2)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if err := pool.Ping(ctx); err != nil {
		t.Fatalf("ping over %s: %v", unix.Redacted(), err)
	}
}
