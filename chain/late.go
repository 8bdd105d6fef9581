package chain

import (
	"context"
	"errors"
	"math/big"
	"sync/atomic"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// ErrNotConnected is what a LateBackend answers until its node is connected.
var ErrNotConnected = errors.New("chain: the node has not answered yet (ETH_RPC_URL unreachable since the start)")

// LateBackend is an OperatorBackend whose node is connected later: serve builds the split
// operator over it when ETH_RPC_URL does not answer at start, every call fails with
// ErrNotConnected (deployments answer 503 chain_unavailable, distribution passes retry), and once
// a background dial succeeds Connect makes it the node's, without a restart.
type LateBackend struct {
	b atomic.Pointer[OperatorBackend]
}

var _ OperatorBackend = (*LateBackend)(nil)

// Connect routes every later call to b.
func (l *LateBackend) Connect(b OperatorBackend) { l.b.Store(&b) }

// Connected reports whether Connect was called.
func (l *LateBackend) Connected() bool { return l.b.Load() != nil }

func (l *LateBackend) get() (OperatorBackend, error) {
	p := l.b.Load()
	if p == nil {
		return nil, ErrNotConnected
	}
	return *p, nil
}

func (l *LateBackend) CodeAt(ctx context.Context, a common.Address, n *big.Int) ([]byte, error) {
	b, err := l.get()
	if err != nil {
		return nil, err
	}
	return b.CodeAt(ctx, a, n)
}

func (l *LateBackend) CallContract(ctx context.Context, call ethereum.CallMsg, n *big.Int) ([]byte, error) {
	b, err := l.get()
	if err != nil {
		return nil, err
	}
	return b.CallContract(ctx, call, n)
}

func (l *LateBackend) HeaderByNumber(ctx context.Context, n *big.Int) (*types.Header, error) {
	b, err := l.get()
	if err != nil {
		return nil, err
	}
	return b.HeaderByNumber(ctx, n)
}

func (l *LateBackend) PendingCodeAt(ctx context.Context, a common.Address) ([]byte, error) {
	b, err := l.get()
	if err != nil {
		return nil, err
	}
	return b.PendingCodeAt(ctx, a)
}

func (l *LateBackend) PendingNonceAt(ctx context.Context, a common.Address) (uint64, error) {
	b, err := l.get()
	if err != nil {
		return 0, err
	}
	return b.PendingNonceAt(ctx, a)
}

func (l *LateBackend) SuggestGasPrice(ctx context.Context) (*big.Int, error) {
	b, err := l.get()
	if err != nil {
		return nil, err
	}
	return b.SuggestGasPrice(ctx)
}

func (l *LateBackend) SuggestGasTipCap(ctx context.Context) (*big.Int, error) {
	b, err := l.get()
	if err != nil {
		return nil, err
	}
	return b.SuggestGasTipCap(ctx)
}

func (l *LateBackend) EstimateGas(ctx context.Context, call ethereum.CallMsg) (uint64, error) {
	b, err := l.get()
	if err != nil {
		return 0, err
	}
	return b.EstimateGas(ctx, call)
}

func (l *LateBackend) SendTransaction(ctx context.Context, tx *types.Transaction) error {
	b, err := l.get()
	if err != nil {
		return err
	}
	return b.SendTransaction(ctx, tx)
}

func (l *LateBackend) FilterLogs(ctx context.Context, q ethereum.FilterQuery) ([]types.Log, error) {
	b, err := l.get()
	if err != nil {
		return nil, err
	}
	return b.FilterLogs(ctx, q)
}

func (l *LateBackend) SubscribeFilterLogs(ctx context.Context, q ethereum.FilterQuery, ch chan<- types.Log) (ethereum.Subscription, error) {
	b, err := l.get()
	if err != nil {
		return nil, err
	}
	return b.SubscribeFilterLogs(ctx, q, ch)
}

func (l *LateBackend) TransactionReceipt(ctx context.Context, hash common.Hash) (*types.Receipt, error) {
	b, err := l.get()
	if err != nil {
		return nil, err
	}
	return b.TransactionReceipt(ctx, hash)
}

func (l *LateBackend) TransactionByHash(ctx context.Context, hash common.Hash) (*types.Transaction, bool, error) {
	b, err := l.get()
	if err != nil {
		return nil, false, err
	}
	return b.TransactionByHash(ctx, hash)
}

// CheckChain is the connected node's (chainChecker); nil for a node that has none.
func (l *LateBackend) CheckChain(ctx context.Context) error {
	b, err := l.get()
	if err != nil {
		return err
	}
	if c, ok := b.(chainChecker); ok {
		return c.CheckChain(ctx)
	}
	return nil
}
