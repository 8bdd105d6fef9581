package settlement_test

// Setup shared by the tests that run the settlement processes against a chain (the split
// distributor's, the wallet verifier's and subscription charging's).

import (
	"bytes"
	"context"
	"math/big"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/chain/contracts"
	"github.com/payledger/payledger/cmd/payledger/app"
	"github.com/payledger/payledger/cmd/payledger/app/web"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/migrations/pgtest"
	"github.com/payledger/payledger/projections"
	"github.com/payledger/payledger/transport/ratelimit"
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

// receiptsLedger is a fresh database and the service built on it as serve builds it
// (cmd/payledger/app): its write store applies the receipts projection at append, and the
// projection runs until stop, which waits for the runner to end.
func receiptsLedger(tb testing.TB, ctx context.Context) (*pgxpool.Pool, eventstore.Store, *projections.Runner, func()) {
	tb.Helper()
	pool := pgtest.Pool(tb)
	svc, err := web.Build(ctx, web.Config{App: app.Config{Store: postgres.New(pool), Pool: pool, Now: time.Now, Log: zerolog.Nop(),
		SecretsKey: bytes.Repeat([]byte{7}, 32), JournalPath: filepath.Join(tb.TempDir(), "journal.jsonl")},
		Limiter: ratelimit.NewMemory(time.Now)})
	if err != nil {
		tb.Fatal(err)
	}
	runner := svc.Projections.Receipts
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); _ = runner.Run(ctx) }()
	return pool, svc.Events, runner, func() { cancel(); <-done }
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
