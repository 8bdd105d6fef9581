package app

import (
	"context"
	"time"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/readmodels"
	"github.com/payledger/payledger/settlement"
)

// sweepInterval is the pace of deposit sweeps: a sweep sent in one pass is recorded in a later
// one, once mined.
const sweepInterval = 2 * time.Second

// depositSweeper is the background worker that sweeps paid receipts' deposits to their splits
// (DESIGN 9) from the operator account, so that the split distributor can pay them out. It needs
// the deposit factory (addresses) and CHAIN_OPERATOR_KEY (sender); without either it does
// nothing: paid deposit receipts stay paid. Every instance may run it: a deposit is claimed
// before it is swept and a sweep is recorded before it is sent.
func depositSweeper(d Deps) Worker {
	addresses, ops, sender, store, pool, log := d.Deposits, d.Chain.SplitChain, d.Chain.SplitOperator, d.Store, d.Pool, d.Log
	return workerFunc(func(ctx context.Context) error {
		factory, ok := addresses.(chain.DepositAddresses)
		op, isOp := ops.(*chain.Operator)
		if !ok || !isOp || sender == nil {
			return nil
		}
		sweeper, err := chain.NewSweeper(op, factory.Factory.Hex())
		if err != nil {
			return err
		}
		log.Info().Str("factory", factory.Factory.Hex()).Msg("deposit sweeps ready")
		h := settlement.NewSweepDepositsHandler(store, sweeper, readmodels.NewDepositSweeps(pool), time.Now)
		return h.Run(ctx, sweepInterval, log)
	})
}
