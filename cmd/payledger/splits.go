package main

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/settlement"
	"github.com/payledger/payledger/settlement/pgstore"
)

// splitChain is what split deployment and distribution use: without ETH_RPC_URL, nothing
// (POST /api/split/deploy requires splitAddress, as without a chain); without
// CHAIN_OPERATOR_KEY, the chain only (a given splitAddress is checked for code, nothing is
// deployed or released: receipts stay paid). One OperatorSender serves both, so that their
// nonces never collide. A node that did not answer at start (rpc nil) gets an operator over a
// chain.LateBackend: until the split distributor's background dial (app.SplitDistributor) connects it, deployments answer
// 503 chain_unavailable and nothing is released; then both work, without a restart.
func splitChain(cfg config, rpc *chain.RPC, pool *pgxpool.Pool, log zerolog.Logger) (*chain.Operator, *settlement.OperatorSender, error) {
	if cfg.EthRPCURL == "" {
		return nil, nil, nil
	}
	var backend chain.OperatorBackend = &chain.LateBackend{}
	if rpc != nil {
		backend = rpc.Backend()
	}
	op, err := chain.NewOperator(cfg.OperatorKey, uint64(cfg.ChainID), backend, cfg.ChainTokens)
	if err != nil {
		return nil, nil, err
	}
	// A sweep counts, and a transaction whose nonce another took is dropped, at the depth
	// deposits count at.
	op = op.WithConfirmations(cfg.ChainConfirmations)
	if cfg.OperatorKey == "" {
		log.Warn().Msg("CHAIN_OPERATOR_KEY unset: splits are neither deployed nor distributed, paid receipts stay paid")
		return op, nil, nil
	}
	log.Info().Str("operator", op.Sender()).Bool("connected", rpc != nil).Msg("split operator ready")
	return op, settlement.NewOperatorSender(op, pgstore.NewOperatorTransactions(pool)), nil
}

// dialUntilAnswered dials ETH_RPC_URL every redialFirst, doubling to redialMax, until the node
// answers with CHAIN_ID (a node serving another chain is logged and dialled again: it may be
// fixed) or ctx ends. waiting says what waits for the node, in the logs.
func dialUntilAnswered(ctx context.Context, cfg config, log zerolog.Logger, waiting string) (*chain.RPC, error) {
	for wait := redialFirst; ; wait = min(2*wait, redialMax) {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(wait):
		}
		rpc, err := dialChecked(ctx, cfg, log)
		switch {
		case err == nil:
			return rpc, nil
		case errors.Is(err, chain.ErrChainIDMismatch):
			log.Error().Err(err).Msg("the chain node serves another chain: fix ETH_RPC_URL or CHAIN_ID; " + waiting + " wait")
		case errors.Is(err, chain.ErrTokenDecimals):
			log.Error().Err(err).Msg("fix CHAIN_TOKENS and restart; " + waiting + " wait")
		default:
			log.Warn().Err(err).Dur("retry_in", min(2*wait, redialMax)).Msg("chain node still unreachable; " + waiting + " wait")
		}
	}
}

// dialChecked dials ETH_RPC_URL and, as the start's dialChain does, checks each CHAIN_TOKENS
// entry's decimals against its contract: a node that did not answer at start and answers later
// is as much a configuration's test as one that answered at once (a wrong decimals would make
// every amount in that token off by a power of ten). Errors: Dial's, ErrTokenDecimals, the
// check's call errors.
func dialChecked(ctx context.Context, cfg config, log zerolog.Logger) (*chain.RPC, error) {
	dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	rpc, err := chain.Dial(dctx, cfg.EthRPCURL, uint64(cfg.ChainID), chainRPCOptions(cfg)...)
	if err != nil {
		return nil, err
	}
	unread, err := rpc.CheckTokenDecimals(dctx, cfg.ChainTokens)
	if err != nil {
		rpc.Close()
		return nil, err
	}
	if len(unread) > 0 {
		log.Error().Strs("tokens", unread).Msg("CHAIN_TOKENS: these contracts do not answer decimals(); their decimals cannot be checked (is the address a token on this chain?)")
	}
	return rpc, nil
}
