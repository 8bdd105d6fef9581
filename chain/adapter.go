package chain

import (
	"context"
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// EthReader is the part of go-ethereum's client API that Adapter needs. Both *ethclient.Client
// and the simulated backend's Client (simulated.Client) satisfy it.
type EthReader interface {
	ethereum.ChainIDReader
	ethereum.BlockNumberReader
	ethereum.LogFilterer
	HeaderByNumber(ctx context.Context, number *big.Int) (*types.Header, error)
	TransactionReceipt(ctx context.Context, hash common.Hash) (*types.Receipt, error)
	TransactionByHash(ctx context.Context, hash common.Hash) (*types.Transaction, bool, error)
	BalanceAt(ctx context.Context, account common.Address, number *big.Int) (*big.Int, error)
}

// Adapter is the Client over an EthReader, for the in-process simulated backend, whose client
// hides its raw RPC connection: it cannot batch, so the plural methods make one call per item
// (and Stats shows it). Following many payments at a constant cost per block needs RPC (Dial, or
// a simulated backend serving HTTP, as the development chain does).
type Adapter struct {
	counter
	c      EthReader
	signer types.Signer
}

var _ Client = (*Adapter)(nil)

// Adapt wraps c, reading its chain id to pick the signer that recovers senders.
func Adapt(ctx context.Context, c EthReader) (*Adapter, error) {
	id, err := c.ChainID(ctx)
	if err != nil {
		return nil, fmt.Errorf("chain: reading the chain id: %w", err)
	}
	return &Adapter{c: c, signer: types.LatestSignerForChainID(id)}, nil
}

func (a *Adapter) ChainID(ctx context.Context) (uint64, error) {
	a.count(1)
	id, err := a.c.ChainID(ctx)
	if err != nil {
		return 0, err
	}
	return id.Uint64(), nil
}

func (a *Adapter) BlockNumber(ctx context.Context) (uint64, error) {
	a.count(1)
	return a.c.BlockNumber(ctx)
}

func (a *Adapter) HeaderByNumber(ctx context.Context, number *big.Int) (*types.Header, error) {
	a.count(1)
	return a.c.HeaderByNumber(ctx, number)
}

func (a *Adapter) TransactionReceipt(ctx context.Context, hash common.Hash) (*types.Receipt, error) {
	a.count(1)
	return a.c.TransactionReceipt(ctx, hash)
}

func (a *Adapter) BalanceAt(ctx context.Context, account common.Address, number *big.Int) (*big.Int, error) {
	a.count(1)
	return a.c.BalanceAt(ctx, account, number)
}

func (a *Adapter) FilterLogs(ctx context.Context, from, to uint64, addresses []common.Address, topics [][]common.Hash) ([]types.Log, error) {
	return filterLogs(ctx, &a.counter, a.c, from, to, addresses, topics)
}

func (a *Adapter) TransactionByHash(ctx context.Context, hash common.Hash) (*Tx, error) {
	a.count(1)
	tx, pending, err := a.c.TransactionByHash(ctx, hash)
	if err != nil {
		return nil, err
	}
	from, err := types.Sender(a.signer, tx)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("transaction %s: recovering the sender", hash), err)
	}
	return &Tx{Tx: tx, From: from, Pending: pending}, nil
}

func (a *Adapter) HeadersByNumber(ctx context.Context, numbers []uint64) ([]*types.Header, error) {
	out := make([]*types.Header, len(numbers))
	for i, n := range numbers {
		h, err := a.HeaderByNumber(ctx, new(big.Int).SetUint64(n))
		if err != nil && !errors.Is(err, ErrNotFound) {
			return nil, err
		}
		out[i] = h
	}
	return out, nil
}

func (a *Adapter) TransactionReceipts(ctx context.Context, hashes []common.Hash) ([]*types.Receipt, error) {
	out := make([]*types.Receipt, len(hashes))
	for i, h := range hashes {
		r, err := a.TransactionReceipt(ctx, h)
		if err != nil && !errors.Is(err, ErrNotFound) {
			return nil, err
		}
		out[i] = r
	}
	return out, nil
}

func (a *Adapter) TransactionsByHash(ctx context.Context, hashes []common.Hash) ([]*Tx, error) {
	out := make([]*Tx, len(hashes))
	for i, h := range hashes {
		tx, err := a.TransactionByHash(ctx, h)
		if err != nil && !errors.Is(err, ErrNotFound) {
			return nil, err
		}
		out[i] = tx
	}
	return out, nil
}
