package main

import (
	"context"
	"fmt"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/cmd/payledger/app"
	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/readmodels"
	"github.com/payledger/payledger/settlement"
)

// depositInterval is how often the deposit detector looks for new blocks.
const depositInterval = time.Second

// deposits are serve's payments by deposit address (DESIGN 9): the addresses new receipts get,
// and the detector that credits transfers to them.
type deposits struct {
	addresses commands.DepositAddresses // nil: no factory known, receipts get no deposit address
	worker    app.Worker
}

// openDeposits finds the deposit factory (DEPOSIT_FACTORY; else, with an operator key and a
// node, the one serve deployed, deploying it once) and builds the detector's worker.
func openDeposits(ctx context.Context, cfg config, rpc *chain.RPC, pool *pgxpool.Pool, store eventstore.Store, log zerolog.Logger) (deposits, error) {
	out := deposits{worker: depositDetector(cfg, rpc, pool, store, log)}
	if rpc != nil { // issue 40: never follow another chain with this chain's cursor and contracts
		dev := !cfg.production() && cfg.ChainID == chain.DevChainID
		if err := settlement.CheckDepositChain(ctx, chain.DepositScanner{RPC: rpc}, readmodels.NewDeposits(pool), readmodels.NewDeposits(pool),
			store, cfg.ChainID, "", dev, time.Now, log); err != nil {
			return out, err
		}
	}
	factory, err := depositFactory(ctx, cfg, rpc, pool)
	if err != nil {
		return out, err
	}
	if factory == "" {
		log.Warn().Msg("no deposit factory (DEPOSIT_FACTORY unset, no operator key or node): receipts get no deposit address")
		return out, nil
	}
	log.Info().Str("factory", factory).Msg("deposit addresses ready")
	out.addresses = chain.DepositAddresses{Factory: common.HexToAddress(factory)}
	return out, nil
}

// depositFactory is DEPOSIT_FACTORY, or the factory recorded for the chain in chain_contracts,
// deployed from CHAIN_OPERATOR_KEY by the first instance that needs it ("" when neither).
func depositFactory(ctx context.Context, cfg config, rpc *chain.RPC, pool *pgxpool.Pool) (string, error) {
	if cfg.DepositFactory != "" {
		return common.HexToAddress(cfg.DepositFactory).Hex(), nil
	}
	if cfg.OperatorKey == "" || rpc == nil {
		return "", nil
	}
	deploy := func(ctx context.Context) (string, error) {
		return chain.DeployDepositFactory(ctx, rpc.Backend(), cfg.OperatorKey, uint64(cfg.ChainID))
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	addr, err := readmodels.ChainContract(ctx, pool, cfg.ChainID, chain.DepositFactoryName, deploy)
	if err != nil {
		return "", fmt.Errorf("deposit factory: %w", err)
	}
	return addr, nil
}

// depositDetector is the worker that credits transfers to deposit addresses; a node unreachable
// at start is dialed until it answers.
func depositDetector(cfg config, rpc *chain.RPC, pool *pgxpool.Pool, store eventstore.Store, log zerolog.Logger) app.Worker {
	return workerFunc(func(ctx context.Context) error {
		if cfg.EthRPCURL == "" {
			return nil
		}
		if rpc == nil {
			var err error
			if rpc, err = dialUntilAnswered(ctx, cfg, log, "deposit detection"); err != nil {
				return err
			}
			defer rpc.Close()
		}
		d := &settlement.DepositDetector{Chain: chain.DepositScanner{RPC: rpc, Tokens: cfg.ChainTokens}, Store: readmodels.NewDeposits(pool),
			Events: store, Confirmations: cfg.ChainConfirmations, Monitor: cfg.PaymentMonitorWindow, Now: time.Now, Log: log}
		return d.Run(ctx, depositInterval)
	})
}
