package chain

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// ChainIDEvery is how often an RPC reads the node's chain id again while in use: ETH_RPC_URL may
// be routed, after start, to a node of another chain (a provider's misrouting, a DNS or proxy
// change). Dial checks it once; every reading worker (deposits, refunds, hints, charges) then
// fails with ErrChainIDMismatch, logged and shown stuck in /healthz, until the node serves
// CHAIN_ID again, rather than reading another chain's blocks as this one's.
const ChainIDEvery = time.Minute

// chainGuard remembers the last chain id check of an RPC: one eth_chainId per ChainIDEvery at
// most, whatever the number of calls. That request is not counted in Stats (a minute's cost,
// not a step's).
type chainGuard struct {
	mu       sync.Mutex
	every    time.Duration // 0: ChainIDEvery
	checked  time.Time
	checking bool  // a check in flight: the other calls go on with the last verdict
	err      error // the last check's verdict: nil or ErrChainIDMismatch
}

// SetChainIDEvery sets how often the chain id is read again (tests; 0 restores ChainIDEvery).
func (c *RPC) SetChainIDEvery(d time.Duration) {
	c.guard.mu.Lock()
	defer c.guard.mu.Unlock()
	c.guard.every = d
}

// sameChain is nil while the node serves the chain id the RPC was made for; ErrChainIDMismatch
// once a check found another. A check that fails to read the id changes nothing (the call it
// precedes fails on its own if the node is down).
func (c *RPC) sameChain(ctx context.Context) error {
	g := &c.guard
	g.mu.Lock()
	every := g.every
	if every <= 0 {
		every = ChainIDEvery
	}
	if g.checking || time.Since(g.checked) < every {
		defer g.mu.Unlock()
		return g.err
	}
	g.checking = true
	g.mu.Unlock()
	err := c.checkChain(ctx)
	g.mu.Lock()
	defer g.mu.Unlock()
	g.checking = false
	if err != nil && !errors.Is(err, ErrChainIDMismatch) {
		return g.err
	}
	return err
}

// freshChain reads the chain id now, whenever the last check was: before the operator takes a
// nonce or sends, where a minute's stale verdict would sign on another chain. A check that fails
// to read the id fails the call (nothing is signed on a node whose chain is not known).
func (c *RPC) freshChain(ctx context.Context) error { return c.checkChain(ctx) }

// checkChain reads the node's chain id and records the verdict (nil or ErrChainIDMismatch). A
// failed read records nothing and is returned.
func (c *RPC) checkChain(ctx context.Context) error {
	id, err := c.eth.ChainID(ctx)
	if err != nil {
		return fmt.Errorf("chain: reading the chain id: %w", err)
	}
	g := &c.guard
	g.mu.Lock()
	defer g.mu.Unlock()
	g.checked, g.err = time.Now(), nil
	if !id.IsUint64() || id.Uint64() != c.chainID {
		g.err = fmt.Errorf("%w: ETH_RPC_URL now serves chain %s, CHAIN_ID is %d: nothing is read from it until it serves CHAIN_ID again",
			ErrChainIDMismatch, id, c.chainID)
	}
	return g.err
}
