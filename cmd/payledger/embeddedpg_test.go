package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/rs/zerolog"
)

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// TestEmbeddedPostgresStartsWhenNothingAnswers is what `make run` relies on for a fresh machine.
func TestEmbeddedPostgresStartsWhenNothingAnswers(t *testing.T) {
	t.Parallel()
	if _, err := findPostgresBin(); err != nil {
		t.Skipf("PostgreSQL server programs not installed: %v", err)
	}
	base := t.TempDir()
	dir := filepath.Join(base, "pg")
	if os.Geteuid() == 0 {
		// The postgres user must be able to reach the folder.
		for _, d := range []string{base, filepath.Dir(base)} {
			if err := os.Chmod(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	url := fmt.Sprintf("postgres://postgres@127.0.0.1:%d/payledger?sslmode=disable", freePort(t))
	ctx := context.Background()
	stop, err := ensurePostgres(ctx, url, dir, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	if stop == nil {
		t.Fatal("nothing answered, yet no cluster was started")
	}
	defer stop()
	conn, err := pgx.Connect(ctx, fmt.Sprintf("postgres://postgres@127.0.0.1:%s/postgres?sslmode=disable", urlPort(url)))
	if err != nil {
		t.Fatalf("private cluster does not answer: %v", err)
	}
	conn.Close(ctx)
	// A second call finds it answering and starts nothing.
	again, err := ensurePostgres(ctx, url, dir, zerolog.Nop())
	if err != nil || again != nil {
		t.Fatalf("second call: stop=%v err=%v, want nothing started", again != nil, err)
	}
}

func TestEnsurePostgresRefusesRemoteHosts(t *testing.T) {
	t.Parallel()
	_, err := ensurePostgres(context.Background(), "postgres://postgres@192.0.2.1:1/x?connect_timeout=1", t.TempDir(), zerolog.Nop())
	if err == nil {
		t.Fatal("a remote host must not get a private cluster")
	}
}

func urlPort(u string) string {
	_, port, _ := net.SplitHostPort(u[len("postgres://postgres@") : len(u)-len("/payledger?sslmode=disable")])
	return port
}
