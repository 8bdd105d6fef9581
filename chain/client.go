package chain

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"
)

// Client is the port through which payment verification reads the chain. Every method is a read;
// sending transactions (split deployment, releases) goes through RPC.Backend, a bind backend.
// The plural methods are batched: one JSON-RPC batch per MaxBatch items, so that following many
// payments costs a constant number of round trips per block instead of one per payment.
type Client interface {
	ChainID(ctx context.Context) (uint64, error)
	BlockNumber(ctx context.Context) (uint64, error)
	// HeaderByNumber returns the canonical header at number (nil: the head); ErrNotFound past the head.
	HeaderByNumber(ctx context.Context, number *big.Int) (*types.Header, error)
	// HeadersByNumber returns the canonical headers at numbers, nil where there is none.
	HeadersByNumber(ctx context.Context, numbers []uint64) ([]*types.Header, error)
	// TransactionReceipt returns ErrNotFound for a transaction that is not mined (or unknown).
	TransactionReceipt(ctx context.Context, hash common.Hash) (*types.Receipt, error)
	// TransactionReceipts returns one receipt per hash, nil for those not mined.
	TransactionReceipts(ctx context.Context, hashes []common.Hash) ([]*types.Receipt, error)
	// TransactionByHash returns ErrNotFound for an unknown transaction.
	TransactionByHash(ctx context.Context, hash common.Hash) (*Tx, error)
	// TransactionsByHash returns one transaction per hash, nil for unknown ones.
	TransactionsByHash(ctx context.Context, hashes []common.Hash) ([]*Tx, error)
	// FilterLogs reads the logs of addresses matching topics over the blocks [from, to], in
	// eth_getLogs calls of at most MaxLogRange blocks.
	FilterLogs(ctx context.Context, from, to uint64, addresses []common.Address, topics [][]common.Hash) ([]types.Log, error)
	BalanceAt(ctx context.Context, account common.Address, number *big.Int) (*big.Int, error)
}

// Tx is a transaction with its sender recovered from the signature (never trusted from the node).
type Tx struct {
	Tx      *types.Transaction
	From    common.Address
	Pending bool // not mined yet
}

// ErrNotFound is what the single lookups return for an unknown or unmined transaction or a
// block past the head; it is go-ethereum's own sentinel so errors.Is works across both.
var ErrNotFound = ethereum.NotFound

// ErrChainIDMismatch is returned by Dial when the node serves another chain than CHAIN_ID; it is
// a configuration error, unlike an unreachable node, which may come back.
var ErrChainIDMismatch = errors.New("chain id mismatch")

// Limits of one request. Public providers refuse larger batches and log ranges; go-ethereum's own
// defaults are 1,000 requests a batch and no range limit.
const (
	MaxBatch    = 500
	MaxLogRange = 2000
)

// Stats counts what an RPC sent: Calls are HTTP/WebSocket round trips (a batch is one), Requests
// are JSON-RPC requests (each item of a batch counts).
type Stats struct {
	Calls    uint64
	Requests uint64
}

// counter counts round trips and requests; embedded by both implementations.
type counter struct {
	calls    atomic.Uint64
	requests atomic.Uint64
}

// Stats reads the counters; safe while calls are in flight.
func (c *counter) Stats() Stats {
	return Stats{Calls: c.calls.Load(), Requests: c.requests.Load()}
}

func (c *counter) count(requests int) {
	c.calls.Add(1)
	c.requests.Add(uint64(requests))
}

// RPC is the Client over a JSON-RPC connection (a node, a provider, or a simulated backend
// serving HTTP): the batched methods are real JSON-RPC batches.
type RPC struct {
	counter
	rpc     *rpc.Client
	eth     *ethclient.Client
	signer  types.Signer
	chainID uint64
	guard   chainGuard // the chain id read again while in use (chain_guard.go)
}

var _ Client = (*RPC)(nil)

// Dial connects to url (http(s) or ws(s)) and checks that the node serves wantChainID. An
// unreachable node is an error too: at start the caller decides whether to retry. Options go to
// go-ethereum's rpc.DialOptions (serve passes an HTTP client that traces each call).
func Dial(ctx context.Context, url string, wantChainID uint64, opts ...rpc.ClientOption) (*RPC, error) {
	rc, err := rpc.DialOptions(ctx, url, opts...)
	if err != nil {
		return nil, fmt.Errorf("chain: dial %s: %w", url, err)
	}
	c := NewRPC(rc, wantChainID)
	got, err := c.ChainID(ctx)
	if err != nil {
		rc.Close()
		return nil, fmt.Errorf("chain: %s: reading the chain id: %w", url, err)
	}
	if got != wantChainID {
		rc.Close()
		return nil, fmt.Errorf("%w: ETH_RPC_URL serves chain %d, CHAIN_ID is %d", ErrChainIDMismatch, got, wantChainID)
	}
	return c, nil
}

// NewRPC wraps an RPC connection without any call; chainID selects the signer used to recover
// senders. Dial is the checked way in; this one serves tests and in-process chains.
func NewRPC(c *rpc.Client, chainID uint64) *RPC {
	return &RPC{
		rpc:     c,
		eth:     ethclient.NewClient(c),
		signer:  types.LatestSignerForChainID(new(big.Int).SetUint64(chainID)),
		chainID: chainID,
		guard:   chainGuard{checked: time.Now()}, // Dial has just checked it
	}
}

// Backend is the connection as a go-ethereum bind backend (contract calls, gas estimation,
// sending), for deployments, releases and sweeps, behind the chain id guard (backend.go). Its
// calls are not counted in Stats.
func (c *RPC) Backend() *Backend { return &Backend{rpc: c, eth: c.eth} }

// Close closes the connection.
func (c *RPC) Close() { c.rpc.Close() }

func (c *RPC) ChainID(ctx context.Context) (uint64, error) {
	c.count(1)
	id, err := c.eth.ChainID(ctx)
	if err != nil {
		return 0, err
	}
	return id.Uint64(), nil
}

func (c *RPC) BlockNumber(ctx context.Context) (uint64, error) {
	if err := c.sameChain(ctx); err != nil {
		return 0, err
	}
	c.count(1)
	return c.eth.BlockNumber(ctx)
}

func (c *RPC) HeaderByNumber(ctx context.Context, number *big.Int) (*types.Header, error) {
	if err := c.sameChain(ctx); err != nil {
		return nil, err
	}
	c.count(1)
	return c.eth.HeaderByNumber(ctx, number)
}

func (c *RPC) TransactionReceipt(ctx context.Context, hash common.Hash) (*types.Receipt, error) {
	if err := c.sameChain(ctx); err != nil {
		return nil, err
	}
	c.count(1)
	return c.eth.TransactionReceipt(ctx, hash)
}

func (c *RPC) BalanceAt(ctx context.Context, account common.Address, number *big.Int) (*big.Int, error) {
	if err := c.sameChain(ctx); err != nil {
		return nil, err
	}
	c.count(1)
	return c.eth.BalanceAt(ctx, account, number)
}

func (c *RPC) TransactionByHash(ctx context.Context, hash common.Hash) (*Tx, error) {
	txs, err := c.TransactionsByHash(ctx, []common.Hash{hash})
	if err != nil {
		return nil, err
	}
	if txs[0] == nil {
		return nil, ErrNotFound
	}
	return txs[0], nil
}

func (c *RPC) FilterLogs(ctx context.Context, from, to uint64, addresses []common.Address, topics [][]common.Hash) ([]types.Log, error) {
	if err := c.sameChain(ctx); err != nil {
		return nil, err
	}
	return filterLogs(ctx, &c.counter, c.eth, from, to, addresses, topics)
}

// filterLogs reads [from, to] in ranges of at most MaxLogRange blocks; a range a provider refuses
// as too large for one answer (tooLarge) is read in halves, down to single blocks. Only the
// logs asked for are kept (asked).
func filterLogs(ctx context.Context, n *counter, f ethereum.LogFilterer, from, to uint64, addresses []common.Address, topics [][]common.Hash) ([]types.Log, error) {
	var out []types.Log
	for lo := from; lo <= to; lo += MaxLogRange {
		hi := min(lo+MaxLogRange-1, to)
		logs, err := filterRange(ctx, n, f, lo, hi, addresses, topics)
		if err != nil {
			return nil, err
		}
		out = append(out, logs...)
		if hi == to { // also ends the loop before lo+MaxLogRange could overflow
			break
		}
	}
	return out, nil
}

// filterRange is one eth_getLogs of [lo, hi], or, refused as too large, its two halves.
func filterRange(ctx context.Context, n *counter, f ethereum.LogFilterer, lo, hi uint64, addresses []common.Address, topics [][]common.Hash) ([]types.Log, error) {
	n.count(1)
	logs, err := f.FilterLogs(ctx, ethereum.FilterQuery{
		FromBlock: new(big.Int).SetUint64(lo),
		ToBlock:   new(big.Int).SetUint64(hi),
		Addresses: addresses,
		Topics:    topics,
	})
	if err != nil && hi > lo && ctx.Err() == nil && tooLarge(err) {
		mid := lo + (hi-lo)/2
		first, err := filterRange(ctx, n, f, lo, mid, addresses, topics)
		if err != nil {
			return nil, err
		}
		second, err := filterRange(ctx, n, f, mid+1, hi, addresses, topics)
		if err != nil {
			return nil, err
		}
		return append(first, second...), nil
	}
	if err != nil {
		return nil, fmt.Errorf("chain: logs of blocks %d-%d: %w", lo, hi, err)
	}
	return asked(logs, lo, hi, addresses, topics), nil
}

// tooLarge is a provider's refusal of a request for its size (eth_getLogs: "query returned more
// than 10000 results", "block range too large", "Log response size exceeded", "limit exceeded";
// a batch: geth's "response too large", "batch too large"): a smaller one is answered. A rate limit (HTTP 429, a message about a rate or capacity: Infura
// says both with code -32005) is not one: halving the range would multiply the requests a
// provider already refuses, so it fails the call, to be read again at the next step.
func tooLarge(err error) bool {
	var herr rpc.HTTPError
	if errors.As(err, &herr) && herr.StatusCode == 429 {
		return false
	}
	msg := strings.ToLower(err.Error())
	for _, s := range []string{"rate", "too many requests", "capacity", "credits", "compute units"} {
		if strings.Contains(msg, s) {
			return false
		}
	}
	for _, s := range []string{"more than", "too large", "too wide", "too big", "size exceeded", "limit exceeded", "exceed maximum", "range is too", "block range"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// asked is the logs of an eth_getLogs answer that the query asked for: in blocks [lo, hi], of one
// of addresses (any when none), matching topics, not removed, each once. A provider that answers
// more (another range, contract or event, a log of an abandoned branch, a log twice) is not
// believed beyond the question.
func asked(logs []types.Log, lo, hi uint64, addresses []common.Address, topics [][]common.Hash) []types.Log {
	type key struct {
		block common.Hash
		index uint
	}
	seen := make(map[key]bool, len(logs))
	out := logs[:0]
	for _, l := range logs {
		k := key{l.BlockHash, l.Index}
		if l.Removed || l.BlockNumber < lo || l.BlockNumber > hi || seen[k] || !matches(l, addresses, topics) {
			continue
		}
		seen[k] = true
		out = append(out, l)
	}
	return out
}

// matches is eth_getLogs' filter: the address one of addresses (any when none), and each topic
// position one of its alternatives (any when none).
func matches(l types.Log, addresses []common.Address, topics [][]common.Hash) bool {
	if len(addresses) > 0 && !slices.Contains(addresses, l.Address) {
		return false
	}
	for i, alts := range topics {
		if len(alts) == 0 {
			continue
		}
		if i >= len(l.Topics) || !slices.Contains(alts, l.Topics[i]) {
			return false
		}
	}
	return true
}
