package settlement_test

// Setup shared by the tests that run the settlement processes against a chain (the split
// distributor's, the wallet verifier's and subscription charging's).

import (
	"context"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/chain/contracts"
	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/migrations/pgtest"
	"github.com/payledger/payledger/projections"
)

// newWallet is a fresh address, lower case.
func newWallet(tb testing.TB) string {
	tb.Helper()
	k, err := crypto.GenerateKey()
	if err != nil {
		tb.Fatal(err)
	}
	return strings.ToLower(crypto.PubkeyToAddress(k.PublicKey).Hex())
}

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

// startDevChain starts the development chain and dials it; both are closed when the test ends.
func startDevChain(tb testing.TB, ctx context.Context, opts chain.DevChainOptions) (*chain.DevChain, *chain.RPC) {
	tb.Helper()
	dev, err := chain.StartDevChain(ctx, opts)
	if err != nil {
		tb.Fatal(err)
	}
	rpc, err := chain.Dial(ctx, dev.URL, chain.DevChainID)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { rpc.Close(); _ = dev.Close() })
	return dev, rpc
}

// usdcBalance is wallet's balance of the development chain's USDC, in base units.
func usdcBalance(tb testing.TB, ctx context.Context, dev *chain.DevChain, rpc *chain.RPC, wallet string) *big.Int {
	tb.Helper()
	usdc, _ := dev.Token("USDC")
	tok, err := contracts.NewTestToken(usdc.Address, rpc.Backend())
	if err != nil {
		tb.Fatal(err)
	}
	b, err := tok.BalanceOf(&bind.CallOpts{Context: ctx}, common.HexToAddress(wallet))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}
