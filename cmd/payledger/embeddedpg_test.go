package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/rs/zerolog"
)

// freePort finds a port free now below Linux's ephemeral range (32768-60999), where the kernel
// never picks a client's source port: a port from net.Listen(":0") is in that range, and while the
// test polls it before the service listens, a connection to it can come from that same port and
// connect to itself (TCP self-connect: an empty answer; seen with the tests in parallel).
func freePort(t *testing.T) int {
	t.Helper()
	for range 100 {
		port := 20000 + rand.IntN(12000)
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			continue // taken
		}
		l.Close()
		return port
	}
	t.Fatal("no free port below the ephemeral range")
	return 0
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
