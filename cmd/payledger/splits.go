package main

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/readmodels"
)

// distributeInterval is the pace of split distribution: a release sent in one pass is recorded
// in a later one, once mined.
const distributeInterval = 2 * time.Second

// splitChain is what split deployment and distribution use: without a chain connected at start,
// nothing (POST /api/split/deploy requires splitAddress, as without a chain); without
// CHAIN_OPERATOR_KEY, the chain only (a given splitAddress is checked for code, nothing is
// deployed or released: receipts stay paid). One OperatorSender serves both, so that their
// nonces never collide.
func splitChain(cfg config, rpc *chain.RPC, pool *pgxpool.Pool, log zerolog.Logger) (commands.SplitChain, *commands.OperatorSender, error) {
	if rpc == nil {
		return nil, nil, nil
	}
	op, err := chain.NewOperator(cfg.OperatorKey, uint64(cfg.ChainID), rpc.Backend(), cfg.ChainTokens)
	if err != nil {
		return nil, nil, err
	}
	if cfg.OperatorKey == "" {
		log.Warn().Msg("CHAIN_OPERATOR_KEY unset: splits are neither deployed nor distributed, paid receipts stay paid")
		return op, nil, nil
	}
	log.Info().Str("operator", op.Sender()).Msg("split operator ready")
	return op, commands.NewOperatorSender(op, readmodels.NewOperatorTransactions(pool)), nil
}

// splitDistributor is the background worker that releases the splits of paid receipts. Every
// instance may run it: a receipt is covered once per payee and nonces are unique per sender.
func splitDistributor(store eventstore.Store, receipts *readmodels.Receipts, sender *commands.OperatorSender, log zerolog.Logger) worker {
	return workerFunc(func(ctx context.Context) error {
		if sender == nil {
			return nil
		}
		h := commands.NewDistributeSplitsHandler(store, commands.NewSplits(store), receipts, sender, time.Now)
		return h.Run(ctx, distributeInterval, log)
	})
}
