package main

import (
	"context"
	"errors"
	"time"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/commands"
)

// Pace of the background dial of a node that does not answer: redialFirst, doubling to redialMax.
const (
	redialFirst = 2 * time.Second
	redialMax   = time.Minute
)

// dialChain connects to ETH_RPC_URL at start, when it is set. A node serving another chain than
// CHAIN_ID, or a CHAIN_TOKENS entry whose decimals are not its contract's, is a configuration
// error and stops the start; a node that does not answer is not (it
// may come back): it is logged, nil is returned, and the chain workers (deposit detection, splits)
// dial again in the background while payments stay pending.
func dialChain(ctx context.Context, cfg config, log zerolog.Logger) (*chain.RPC, error) {
	if cfg.EthRPCURL == "" {
		return nil, nil
	}
	rpc, err := dialChecked(ctx, cfg, log)
	if errors.Is(err, chain.ErrChainIDMismatch) || errors.Is(err, chain.ErrTokenDecimals) {
		return nil, err
	}
	if err != nil {
		log.Warn().Err(err).Msg("chain node unreachable at start; wallet payments stay pending until it answers (retrying)")
		return nil, nil
	}
	log.Info().Int64("chain_id", cfg.ChainID).Int("confirmations", cfg.ChainConfirmations).Msg("chain connected")
	return rpc, nil
}

// chainTransactions is what the payment page's submitted hashes are checked against: the chain
// dialed at start, nil without one (a hint is then taken unchecked; it never pays anyway).
func chainTransactions(cfg config, rpc *chain.RPC) commands.ChainTransactions {
	if rpc == nil {
		return nil
	}
	return chain.NewTransactionCredits(rpc, cfg.ChainTokens)
}
