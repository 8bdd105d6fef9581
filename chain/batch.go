package chain

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rpc"
)

// batch sends n requests in JSON-RPC batches of at most MaxBatch. An error of any item fails the
// whole call: the caller retries the block later rather than acting on a partial view.
func (c *RPC) batch(ctx context.Context, n int, elem func(i int) rpc.BatchElem) error {
	return c.batches(ctx, n, elem, func(_ int, elems []rpc.BatchElem) error {
		for _, e := range elems {
			if e.Error != nil {
				return fmt.Errorf("%s: %w", e.Method, e.Error)
			}
		}
		return nil
	})
}

// batches sends n requests in JSON-RPC batches of at most MaxBatch, handing each answered batch
// (its first request is number lo) to answered; an error of answered stops before the next batch.
func (c *RPC) batches(ctx context.Context, n int, elem func(i int) rpc.BatchElem, answered func(lo int, elems []rpc.BatchElem) error) error {
	if err := c.sameChain(ctx); err != nil {
		return err
	}
	for lo := 0; lo < n; lo += MaxBatch {
		hi := min(lo+MaxBatch, n)
		elems := make([]rpc.BatchElem, hi-lo)
		for i := range elems {
			elems[i] = elem(lo + i)
		}
		c.count(len(elems))
		if err := c.rpc.BatchCallContext(ctx, elems); err != nil {
			return err
		}
		if err := answered(lo, elems); err != nil {
			return err
		}
	}
	return nil
}

// batchCall sends method once per args in batches and returns each request's result and error
// (a refusal of one request is not an error of the call: the caller judges it).
func batchCall[T any](ctx context.Context, c *RPC, method string, args [][]any) ([]T, []error, error) {
	out, errs := make([]T, len(args)), make([]error, len(args))
	err := c.batches(ctx, len(args), func(i int) rpc.BatchElem {
		return rpc.BatchElem{Method: method, Args: args[i], Result: &out[i]}
	}, func(lo int, elems []rpc.BatchElem) error {
		for i, e := range elems {
			errs[lo+i] = e.Error
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return out, errs, nil
}

// TransactionReceipts implements Client. A receipt of another transaction than the one asked
// (a hostile or broken node, a proxy that mixes up a batch's answers) is an error, as for the
// single lookup (minedReceipt), never taken for it: a charge's success or a sweep's block would
// be another transaction's.
func (c *RPC) TransactionReceipts(ctx context.Context, hashes []common.Hash) ([]*types.Receipt, error) {
	out := make([]*types.Receipt, len(hashes))
	err := c.batch(ctx, len(hashes), func(i int) rpc.BatchElem {
		return rpc.BatchElem{Method: "eth_getTransactionReceipt", Args: []any{hashes[i]}, Result: &out[i]}
	})
	if err != nil {
		return nil, err
	}
	for i, r := range out {
		if r != nil && r.TxHash != hashes[i] {
			return nil, fmt.Errorf("eth_getTransactionReceipt %s: the node answered the receipt of %s", hashes[i].Hex(), r.TxHash.Hex())
		}
	}
	return out, nil
}

func (c *RPC) HeadersByNumber(ctx context.Context, numbers []uint64) ([]*types.Header, error) {
	out := make([]*types.Header, len(numbers))
	err := c.batch(ctx, len(numbers), func(i int) rpc.BatchElem {
		return rpc.BatchElem{
			Method: "eth_getBlockByNumber",
			Args:   []any{hexutil.EncodeUint64(numbers[i]), false},
			Result: &out[i],
		}
	})
	if err != nil {
		return nil, err
	}
	for i, h := range out {
		if h != nil && (h.Number == nil || !h.Number.IsUint64() || h.Number.Uint64() != numbers[i]) {
			return nil, fmt.Errorf("eth_getBlockByNumber %d: the node answered block %v", numbers[i], h.Number)
		}
	}
	return out, nil
}

// rpcTx is eth_getTransactionByHash's answer: the transaction plus the fields go-ethereum's
// types.Transaction does not decode.
type rpcTx struct {
	tx    *types.Transaction
	extra struct {
		BlockNumber *string `json:"blockNumber,omitempty"`
	}
}

func (t *rpcTx) UnmarshalJSON(b []byte) error {
	if err := json.Unmarshal(b, &t.tx); err != nil {
		return err
	}
	return json.Unmarshal(b, &t.extra)
}

func (c *RPC) TransactionsByHash(ctx context.Context, hashes []common.Hash) ([]*Tx, error) {
	raw := make([]*rpcTx, len(hashes))
	err := c.batch(ctx, len(hashes), func(i int) rpc.BatchElem {
		return rpc.BatchElem{Method: "eth_getTransactionByHash", Args: []any{hashes[i]}, Result: &raw[i]}
	})
	if err != nil {
		return nil, err
	}
	out := make([]*Tx, len(hashes))
	for i, r := range raw {
		if r == nil || r.tx == nil {
			continue
		}
		if r.tx.Hash() != hashes[i] {
			return nil, fmt.Errorf("eth_getTransactionByHash %s: node answered transaction %s", hashes[i], r.tx.Hash())
		}
		// The sender is recovered from the signature rather than read from the node's "from",
		// so a wallet check never rests on what a provider claims.
		from, err := types.Sender(c.signer, r.tx)
		if err != nil {
			return nil, errors.Join(fmt.Errorf("transaction %s: recovering the sender", hashes[i]), err)
		}
		out[i] = &Tx{Tx: r.tx, From: from, Pending: r.extra.BlockNumber == nil}
	}
	return out, nil
}
