package main

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/cmd/payledger/app/web"
	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/migrations/pgtest"
	"github.com/payledger/payledger/transport/ratelimit"
)

// testServiceConfig is the configuration serve would read from vars, on a fresh test database
// (DATABASE_URL) with the order journal in a temporary folder.
func testServiceConfig(t *testing.T, vars map[string]string) config {
	t.Helper()
	all := map[string]string{"DATABASE_URL": pgtest.URL(t), "JOURNAL_PATH": filepath.Join(t.TempDir(), "journal.jsonl"), "DEVCHAIN": "off", "EMBEDDED_POSTGRES": "off"}
	for k, v := range vars {
		all[k] = v
	}
	cfg, _, err := loadConfig(env(all), bytes.NewReader(bytes.Repeat([]byte{7}, 4096)))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// buildService builds the service as serve does (serviceConfig, then web.Build) on cfg's database,
// with the chain client rpc (nil: the node did not answer at start); adjust, when set, changes
// the test's configuration first (a fake clock, a log to read).
func buildService(t *testing.T, ctx context.Context, cfg config, rpc *chain.RPC, adjust func(*web.Config)) *web.Service {
	t.Helper()
	pool, err := openPool(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	sc, err := serviceConfig(ctx, cfg, opened{rpc: rpc, pool: pool, store: postgres.New(pool), limiter: ratelimit.NewMemory(time.Now)}, zerolog.Nop(), zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	if adjust != nil {
		adjust(&sc)
	}
	svc, err := web.Build(ctx, sc)
	if err != nil {
		t.Fatal(err)
	}
	return svc
}
