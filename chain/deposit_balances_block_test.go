package chain_test

import (
	"context"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/payledger/payledger/chain"
)

// TestBalancesAreTheNamedBlocks (stop 65): the deposit detector credits ETH a contract sent by
// the balance it reads at the block it names by hash (a balance credit's key, judged at the
// depth by that hash). Read by number, the balances were those of whatever block the node had
// at that number by then: after a reorg between the scan and the read (or from a load
// balancer's node on another branch), another block's ETH was credited as the named block's.
// Now the read names the block by hash (EIP-1898) and answers that block's state.
func TestBalancesAreTheNamedBlocks(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	parent, err := e.sim.HeaderByNumber(ctx, nil)
	e.ok(err)
	e.mined(e.payETH(e.buyer, e.elsewhere, eth(1234)))
	read, err := e.sim.HeaderByNumber(ctx, nil) // the block a scan read, with the payment
	e.ok(err)

	// A reorg replaces it with a branch without the payment.
	e.ok(e.b.Fork(parent.Hash()))
	e.b.Rollback() // the forked-away transaction leaves the pool
	e.ok(chain.WaitPoolSettled(ctx, e.rpc.Backend().Client()))
	e.b.Rollback()
	e.b.Commit()
	e.b.Commit()
	now, err := e.sim.BalanceAt(ctx, e.elsewhere, read.Number)
	e.ok(err)
	if now.Sign() != 0 {
		t.Fatalf("the new branch holds %s at block %d: the reorg did not take the payment out", now, read.Number)
	}

	got, err := e.rpc.BalancesAt(ctx, []common.Address{e.elsewhere}, read.Hash())
	e.ok(err)
	if got[0].Cmp(eth(1234)) != 0 {
		t.Fatalf("the balance at block %s (replaced) is %s, want that block's %s", read.Hash(), got[0], eth(1234))
	}
}
