package settlement_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"

	"github.com/payledger/payledger/chain/contracts"
	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/settlement"
)

// emptying is the sweeper's chain where, before the first sweep is sent, the split's USDC is
// released to its payees and mined (release is anyone's to call), as when the distributor's
// releases of that split, signed at lower nonces by this instance or another, are mined just
// before the sweep: the sweep was estimated while the split held USDC and is mined when it holds
// none.
type emptying struct {
	settlement.SweepChain
	e      *sweepEnv
	split  common.Address
	payees []common.Address
	once   sync.Once
}

func (c *emptying) Broadcast(ctx context.Context, raw []byte) error {
	c.once.Do(func() {
		s, err := contracts.NewPaymentSplit(c.split, c.e.rpc.Backend())
		if err != nil {
			c.e.t.Error(err)
			return
		}
		usdc, _ := c.e.dev.Token("USDC")
		for _, p := range c.payees {
			tx, err := s.Release0(c.e.devOpts(2), usdc.Address, p)
			if err == nil {
				_, err = bind.WaitMined(ctx, c.e.rpc.Backend(), tx)
			}
			if err != nil {
				c.e.t.Errorf("release to %s: %v", p, err)
			}
		}
	})
	return c.SweepChain.Broadcast(ctx, raw)
}

// A sweep to the operator's own split that reverts when mined because the chain changed after
// its estimate (out of gas: the split's balance, emptied by releases mined first, made the
// transfer into it write a new storage slot; the sweeper's headroom for that is off here, as for
// a change larger than it) is swept again at a new estimate. Before, the
// only deposit of a reverted sweep was checked at its version and left until its receipt changed:
// the receipt stayed paid for good, never reconciled, its funds at the deposit, with no log. Seen
// with two serve instances on one chain (TestMultiServeDepositsSettledOnceByTwoInstances).
func TestSweepDepositsRevertedByAnEmptiedSplitIsSweptAgain(t *testing.T) {
	t.Parallel()
	e := newSweepEnv(t)
	merchant, platform, st, _ := e.merchantWithSplit()
	e.pay(st.Address, 5_000_000) // funds swept earlier, not yet released
	id, deposit := e.depositReceipt(merchant, st.Address, 1250)
	e.payDeposit(id, deposit, "USDC", 12_500_000)

	chain := &emptying{SweepChain: e.newSweeper(e.op).WithSplitHeadroom(0), e: e, split: common.HexToAddress(st.Address),
		payees: []common.Address{common.HexToAddress(merchant), common.HexToAddress(platform)}}
	h := e.sweeperOf(chain)
	wait.Until(t, "the first sweep mined", 60*time.Second, func() bool {
		if _, err := h.Handle(e.ctx); err != nil {
			t.Logf("sweep pass: %v", err)
		}
		var settled int
		if err := e.pool.QueryRow(e.ctx, `SELECT count(*) FROM operator_transactions WHERE kind = 'sweep' AND status <> 'signed'`).Scan(&settled); err != nil {
			t.Fatal(err)
		}
		return settled > 0
	})
	var reverted int
	if err := e.pool.QueryRow(e.ctx, `SELECT count(*) FROM operator_transactions WHERE kind = 'sweep' AND status = 'reverted'`).Scan(&reverted); err != nil {
		t.Fatal(err)
	}
	if reverted != 1 {
		t.Fatalf("%d sweeps reverted: the emptied split did not make the first one run out of gas", reverted)
	}
	wait.Until(t, "the deposit swept after its sweep reverted", 60*time.Second, func() bool {
		if _, err := h.Handle(e.ctx); err != nil {
			t.Logf("sweep pass: %v", err)
		}
		return e.state(id).Swept() && len(e.sweptEvents(id)) == 1
	})
	if b := e.balanceOf("USDC", deposit); b.Sign() != 0 {
		t.Fatalf("the deposit still holds %s USDC", b)
	}
}
