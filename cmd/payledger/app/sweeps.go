package app

import (
	"context"
	"time"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/settlement"
	"github.com/payledger/payledger/settlement/pgstore"
)

// sweepInterval is the pace of deposit sweeps: a sweep sent in one pass is recorded in a later
// one, once mined.
const sweepInterval = 2 * time.Second

// depositSweeper is the background worker that sweeps paid receipts' deposits to their splits
// (DESIGN 9) from the operator account, so that the split distributor can pay them out. It needs
// the deposit factory (addresses) and CHAIN_OPERATOR_KEY (sender); without either it is nil (off,
// Capabilities says why): paid deposit receipts stay paid. Every instance may run it: a deposit
// is claimed before it is swept and a sweep is recorded before it is sent.
func depositSweeper(d Config, health *Health) Worker {
	factory, ok := d.Deposits.(chain.DepositAddresses)
	op, sender := d.Chain.Operator, d.Chain.SplitOperator
	if !ok || op == nil || sender == nil {
		return nil
	}
	return health.Stepped("deposit sweeps", sweepInterval, func(ctx context.Context, loop func(context.Context, Step) error) error {
		sweeper, err := chain.NewSweeper(op, factory.Factory.Hex())
		if err != nil {
			return err
		}
		d.Log.Info().Str("factory", factory.Factory.Hex()).Msg("deposit sweeps ready")
		h := settlement.NewSweepDepositsHandler(d.Store, sweeper, pgstore.NewDepositSweeps(d.Pool), time.Now).
			WithFailedMinCents(money.Cents(d.SweepFailedMinCents))
		err = loop(ctx, func(ctx context.Context) (bool, error) {
			_, err := h.Handle(ctx)
			return true, err
		})
		releaseSweepClaims(ctx, h, d.Log)
		return err
	})
}

// releaseStop bounds how long a stopping serve spends giving up its sweep claims.
const releaseStop = 5 * time.Second

// releaseSweepClaims gives up h's claims when the worker stops (a graceful stop, or the loop
// ending on an error before a restart by the supervisor): the next instance sweeps those deposits
// at once. One that fails is logged; its claims lapse after the lease, as a killed process's do.
func releaseSweepClaims(ctx context.Context, h *settlement.SweepDepositsHandler, log zerolog.Logger) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseStop)
	defer cancel()
	if err := h.Release(ctx); err != nil {
		log.Error().Err(err).Msg("deposit sweeps: giving up this instance's claims at stop failed; they lapse after the lease")
	}
}
