package commands_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/projections"
)

// reconcileEnv is the reconciliation tests' ledger: the events go to PostgreSQL and the receipts
// projection follows them (the work list is its read model, as in serve), a clock the test moves,
// a merchant with a split, a fake processor and the onramp start over it.
type reconcileEnv struct {
	ctx    context.Context
	pool   *pgxpool.Pool
	store  *projections.ReceiptsAtAppend
	runner *projections.Runner
	clk    *movingClock
	pay    *payEnv
	proc   *fakeProcessor
	start  *commands.StartOnrampHandler
}

func newReconcileEnv(t *testing.T) reconcileEnv {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pool, store, runner, stop := receiptsLedger(t, ctx)
	t.Cleanup(func() { cancel(); stop() })
	clk := &movingClock{t: time.Now()}
	e := &payEnv{t: t, ctx: ctx, store: store, at: clk.now()}
	e.configureSplit(payMerchant)
	f := newFakeProcessor()
	return reconcileEnv{ctx: ctx, pool: pool, store: store, runner: runner, clk: clk, pay: e, proc: f,
		start: commands.NewStartOnrampHandler(store, commands.NewSplits(store), f, noPrices{}, clk.now)}
}
