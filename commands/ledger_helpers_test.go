package commands_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/migrations/pgtest"
	"github.com/payledger/payledger/projections"
)

// receiptsLedger is a fresh database whose store has the receipts projection running on it
// (applied at append too), as serve has it, until stop, which waits for the runner to end.
func receiptsLedger(tb testing.TB, ctx context.Context) (*pgxpool.Pool, *projections.ReceiptsAtAppend, *projections.Runner, func()) {
	tb.Helper()
	pool := pgtest.Pool(tb)
	store := postgres.New(pool)
	proj := projections.NewReceipts(nil)
	runner, err := projections.NewRunner(pool, store, proj, zerolog.Nop())
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); _ = runner.Run(ctx) }()
	return pool, proj.AtAppend(store, runner), runner, func() { cancel(); <-done }
}
