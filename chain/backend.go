package chain

import (
	"context"
	"math/big"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"
)

// Backend is an RPC's connection as a go-ethereum bind backend: the operator's contract reads,
// gas estimates, nonces and sends (split deployments and releases, sweeps, the deposit factory,
// charges' fees). Every call that reads the chain or sends to it passes the RPC's chain id guard
// first (chain_guard.go), as the Client's reads do: a node routed to another chain after start
// makes them fail with ErrChainIDMismatch (the workers log it and show stuck in /healthz) instead
// of reading another chain's contracts and nonces and signing on them. The nonce read and the
// send read the chain id again each time (freshChain): a nonce of another chain recorded in the
// operator's ledger would leave a gap that holds every later operator transaction for good.
// There is no way around the guard: the type has no embedded client, only these methods.
type Backend struct {
	rpc *RPC
	eth *ethclient.Client
}

var _ OperatorBackend = (*Backend)(nil)

// Client is the raw JSON-RPC connection (tests' txpool reads; not guarded).
func (b *Backend) Client() *rpc.Client { return b.eth.Client() }

// CheckChain reads the chain id now (freshChain): the operator asks it before a decision a
// stale verdict would make for good on another chain's answers (chainChecker).
func (b *Backend) CheckChain(ctx context.Context) error { return b.rpc.freshChain(ctx) }

// ChainID is the node's chain id, read as it is (the guard's own question).
func (b *Backend) ChainID(ctx context.Context) (*big.Int, error) { return b.eth.ChainID(ctx) }

func (b *Backend) BlockNumber(ctx context.Context) (uint64, error) {
	return guarded(ctx, b.rpc.sameChain, func() (uint64, error) { return b.eth.BlockNumber(ctx) })
}

func (b *Backend) HeaderByNumber(ctx context.Context, n *big.Int) (*types.Header, error) {
	return guarded(ctx, b.rpc.sameChain, func() (*types.Header, error) { return b.eth.HeaderByNumber(ctx, n) })
}

func (b *Backend) BalanceAt(ctx context.Context, a common.Address, n *big.Int) (*big.Int, error) {
	return guarded(ctx, b.rpc.sameChain, func() (*big.Int, error) { return b.eth.BalanceAt(ctx, a, n) })
}

func (b *Backend) CodeAt(ctx context.Context, a common.Address, n *big.Int) ([]byte, error) {
	return guarded(ctx, b.rpc.sameChain, func() ([]byte, error) { return b.eth.CodeAt(ctx, a, n) })
}

func (b *Backend) PendingCodeAt(ctx context.Context, a common.Address) ([]byte, error) {
	return guarded(ctx, b.rpc.sameChain, func() ([]byte, error) { return b.eth.PendingCodeAt(ctx, a) })
}

func (b *Backend) CallContract(ctx context.Context, call ethereum.CallMsg, n *big.Int) ([]byte, error) {
	return guarded(ctx, b.rpc.sameChain, func() ([]byte, error) { return b.eth.CallContract(ctx, call, n) })
}

func (b *Backend) PendingCallContract(ctx context.Context, call ethereum.CallMsg) ([]byte, error) {
	return guarded(ctx, b.rpc.sameChain, func() ([]byte, error) { return b.eth.PendingCallContract(ctx, call) })
}

// PendingNonceAt reads the chain id again first (freshChain): the nonce signs a transaction.
func (b *Backend) PendingNonceAt(ctx context.Context, a common.Address) (uint64, error) {
	return guarded(ctx, b.rpc.freshChain, func() (uint64, error) { return b.eth.PendingNonceAt(ctx, a) })
}

func (b *Backend) NonceAt(ctx context.Context, a common.Address, n *big.Int) (uint64, error) {
	return guarded(ctx, b.rpc.sameChain, func() (uint64, error) { return b.eth.NonceAt(ctx, a, n) })
}

func (b *Backend) SuggestGasPrice(ctx context.Context) (*big.Int, error) {
	return guarded(ctx, b.rpc.sameChain, func() (*big.Int, error) { return b.eth.SuggestGasPrice(ctx) })
}

func (b *Backend) SuggestGasTipCap(ctx context.Context) (*big.Int, error) {
	return guarded(ctx, b.rpc.sameChain, func() (*big.Int, error) { return b.eth.SuggestGasTipCap(ctx) })
}

func (b *Backend) EstimateGas(ctx context.Context, call ethereum.CallMsg) (uint64, error) {
	return guarded(ctx, b.rpc.sameChain, func() (uint64, error) { return b.eth.EstimateGas(ctx, call) })
}

// SendTransaction reads the chain id again first (freshChain).
func (b *Backend) SendTransaction(ctx context.Context, tx *types.Transaction) error {
	if err := b.rpc.freshChain(ctx); err != nil {
		return err
	}
	return b.eth.SendTransaction(ctx, tx)
}

func (b *Backend) FilterLogs(ctx context.Context, q ethereum.FilterQuery) ([]types.Log, error) {
	return guarded(ctx, b.rpc.sameChain, func() ([]types.Log, error) { return b.eth.FilterLogs(ctx, q) })
}

func (b *Backend) SubscribeFilterLogs(ctx context.Context, q ethereum.FilterQuery, ch chan<- types.Log) (ethereum.Subscription, error) {
	return guarded(ctx, b.rpc.sameChain, func() (ethereum.Subscription, error) { return b.eth.SubscribeFilterLogs(ctx, q, ch) })
}

func (b *Backend) TransactionReceipt(ctx context.Context, hash common.Hash) (*types.Receipt, error) {
	return guarded(ctx, b.rpc.sameChain, func() (*types.Receipt, error) { return b.eth.TransactionReceipt(ctx, hash) })
}

func (b *Backend) TransactionByHash(ctx context.Context, hash common.Hash) (*types.Transaction, bool, error) {
	if err := b.rpc.sameChain(ctx); err != nil {
		return nil, false, err
	}
	return b.eth.TransactionByHash(ctx, hash)
}

// guarded answers read once check (the RPC's chain id guard, sameChain or freshChain) has passed.
func guarded[T any](ctx context.Context, check func(context.Context) error, read func() (T, error)) (T, error) {
	if err := check(ctx); err != nil {
		var zero T
		return zero, err
	}
	return read()
}
