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

// A session of serve's pools has the server end a connection whose client vanished within
// seconds, not after the server's default two hours: that connection's open transaction would
// hold its rows, and every projector's reads, for as long.
func TestPoolSessionsHaveTheServersKeepalive(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	pool, err := openPoolAt(ctx, "DATABASE_URL", pgtest.URL(t), 2)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	for name, want := range map[string]string{"tcp_keepalives_idle": "5", "tcp_keepalives_interval": "5",
		"tcp_keepalives_count": "3", "tcp_user_timeout": "0"} { // 0: a slow export's zero window is no loss
		var got string
		if err := pool.QueryRow(ctx, "SELECT setting FROM pg_settings WHERE name = $1", name).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("%s = %s, want %s", name, got, want)
		}
	}
}
