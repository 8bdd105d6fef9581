package main

import (
	"context"
	"errors"
	"time"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/readmodels"
	"github.com/payledger/payledger/settlement"
)

// Pace of the wallet verifier: the chain is read every verifyInterval (the development chain
// seals a block every 2 s), the work list synced from the receipts read model every verifyRefresh.
const (
	verifyInterval = time.Second
	verifyRefresh  = 2 * time.Second
	redialFirst    = 2 * time.Second
	redialMax      = time.Minute
)

// dialChain connects to ETH_RPC_URL at start, when it is set. A node serving another chain than
// CHAIN_ID is a configuration error and stops the start; a node that does not answer is not (it
// may come back): it is logged, nil is returned, and the verifier dials again in the background
// while wallet payments stay pending.
func dialChain(ctx context.Context, cfg config, log zerolog.Logger) (*chain.RPC, error) {
	if cfg.EthRPCURL == "" {
		return nil, nil
	}
	dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	rpc, err := chain.Dial(dctx, cfg.EthRPCURL, uint64(cfg.ChainID))
	if errors.Is(err, chain.ErrChainIDMismatch) {
		return nil, err
	}
	if err != nil {
		log.Warn().Err(err).Msg("chain node unreachable at start; wallet payments stay pending until it answers (retrying)")
		return nil, nil
	}
	log.Info().Int64("chain_id", cfg.ChainID).Int("confirmations", cfg.ChainConfirmations).Msg("chain connected")
	return rpc, nil
}

// walletVerifier is the background worker that confirms wallet payments on chain: without
// ETH_RPC_URL it does nothing (payments stay pending); with it, it dials until the node answers
// (rpc, when dialed at start, is used at once and left to serve to close) and then runs the
// verifier. Every instance may run it: recording a verdict is idempotent.
func walletVerifier(cfg config, rpc *chain.RPC, store eventstore.Store, receipts *readmodels.Receipts, log zerolog.Logger) worker {
	return workerFunc(func(ctx context.Context) error {
		if cfg.EthRPCURL == "" {
			return nil
		}
		if rpc == nil { // dialed here: closed here (the one dialed at start is serve's)
			var err error
			if rpc, err = dialUntilAnswered(ctx, cfg, log, "wallet payment verifications"); err != nil {
				return err
			}
			defer rpc.Close()
			log.Info().Msg("chain connected")
		}
		v := settlement.NewVerifyWalletPaymentsHandler(store, receipts, commands.NewSplits(store),
			chain.NewPaymentWatcher(rpc, cfg.ChainTokens, cfg.ChainConfirmations), time.Now)
		return v.Run(ctx, verifyInterval, verifyRefresh, log)
	})
}

// chainTransactions is what the payment page's submitted hashes are checked against: the chain
// dialed at start, nil without one (a hint is then taken unchecked; it never pays anyway).
func chainTransactions(cfg config, rpc *chain.RPC) commands.ChainTransactions {
	if rpc == nil {
		return nil
	}
	return chain.NewTransactionCredits(rpc, cfg.ChainTokens)
}
