package main

import (
	"context"
	"fmt"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/settlement"
	"github.com/payledger/payledger/settlement/pgstore"
)

// depositAddresses are the addresses new receipts get (DESIGN 9): from the deposit factory
// (DEPOSIT_FACTORY; else, with an operator key and a node, the one serve deployed, deploying it
// once); nil when neither (the detector itself is built by cmd/payledger/app). First, the
// node's chain is checked against the one the database followed (issue 40): never follow
// another chain with this chain's cursor and contracts (settlement.CheckDepositChain).
func depositAddresses(ctx context.Context, cfg config, rpc *chain.RPC, pool *pgxpool.Pool, store eventstore.Store, log zerolog.Logger) (commands.DepositAddresses, error) {
	if rpc != nil {
		dev := !cfg.production() && cfg.ChainID == chain.DevChainID
		deps := pgstore.NewDeposits(pool)
		if err := settlement.CheckDepositChain(ctx, chain.DepositScanner{RPC: rpc}, deps, deps, store, cfg.ChainID, "", dev, time.Now, log); err != nil {
			return nil, err
		}
	}
	factory, err := depositFactory(ctx, cfg, rpc, pool)
	if err != nil {
		return nil, err
	}
	if factory == "" {
		log.Warn().Msg("no deposit factory (DEPOSIT_FACTORY unset, no operator key or node): receipts get no deposit address")
		return nil, nil
	}
	log.Info().Str("factory", factory).Msg("deposit addresses ready")
	return chain.DepositAddresses{Factory: common.HexToAddress(factory)}, nil
}

// depositFactory is DEPOSIT_FACTORY, or the factory recorded for the chain in chain_contracts,
// deployed from CHAIN_OPERATOR_KEY by the first instance that needs it ("" when neither).
func depositFactory(ctx context.Context, cfg config, rpc *chain.RPC, pool *pgxpool.Pool) (string, error) {
	if cfg.DepositFactory != "" {
		factory := common.HexToAddress(cfg.DepositFactory)
		if rpc != nil { // receipts would get addresses nothing can sweep: refuse to start
			if err := chain.CheckDepositFactory(ctx, rpc.Backend(), factory); err != nil {
				return "", fmt.Errorf("DEPOSIT_FACTORY: %w", err)
			}
		}
		return factory.Hex(), nil
	}
	if cfg.OperatorKey == "" || rpc == nil {
		return "", nil
	}
	deploy := func(ctx context.Context) (string, error) {
		return chain.DeployDepositFactory(ctx, rpc.Backend(), cfg.OperatorKey, uint64(cfg.ChainID))
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	addr, err := pgstore.ChainContract(ctx, pool, cfg.ChainID, chain.DepositFactoryName, deploy)
	if err != nil {
		return "", fmt.Errorf("deposit factory: %w", err)
	}
	return addr, nil
}
