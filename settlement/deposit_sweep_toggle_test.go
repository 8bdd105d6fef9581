package settlement_test

import (
	"bytes"
	"context"
	"errors"
	"math/big"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/payledger/payledger/chain/contracts"
	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/settlement"
)

// toggling is the sweeper's chain with a split contract that receives cheaply when a sweep is
// estimated and burns gas when it is mined: its owner raises the burn just before a sweep naming
// it is sent, and lowers it again once that sweep's outcome is read.
type toggling struct {
	settlement.SweepChain
	e     *sweepEnv
	split common.Address
	c     *contracts.BurningReceiveSplit
	owner *bind.TransactOpts
	mu    sync.Mutex
	sent  map[common.Hash]bool
}

func (t *toggling) Broadcast(ctx context.Context, raw []byte) error {
	tx := new(types.Transaction)
	if err := tx.UnmarshalBinary(raw); err != nil {
		return err
	}
	if bytes.Contains(tx.Data(), t.split.Bytes()) {
		t.mu.Lock()
		t.sent[tx.Hash()] = true
		t.mu.Unlock()
		t.e.setReceiveRounds(t.c, t.owner, 30_000)
	}
	return t.SweepChain.Broadcast(ctx, raw)
}

func (t *toggling) SweepOutcome(ctx context.Context, hash string, deposits []settlement.SweepDeposit) (*settlement.SweepOutcome, error) {
	out, err := t.SweepChain.SweepOutcome(ctx, hash, deposits)
	if out != nil && t.sentSweep(hash) {
		t.e.setReceiveRounds(t.c, t.owner, 0)
	}
	return out, err
}

func (t *toggling) sentSweep(hash string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.sent[common.HexToHash(hash)]
}

func (t *toggling) sweeps() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.sent)
}

// A merchant's split contract that receives cheaply when a sweep is estimated and burns the gas
// when it is mined: its deposits' sweep reverts (the factory's OutOfGas) at the operator's
// expense. That split is then held back (ErrSweepGas every pass) instead of its deposits being
// freed and swept again, a reverted sweep paid by the operator every pass.
func TestSweepDepositsHoldsASplitWhoseSweepRevertsWhenMined(t *testing.T) {
	t.Parallel()
	e := newSweepEnv(t)
	merchant, _, st, _ := e.merchantWithSplit()
	good, _, _ := e.paidAt(merchant, st.Address, []money.Cents{100})
	burner := newWallet(t)
	hostile, c, owner := e.deployBurningReceiveSplit([]string{burner, newWallet(t)}, []int64{5000, 5000}, 0)
	var bad []string
	for range 2 {
		id, deposit := e.depositReceipt(burner, hostile, 100)
		e.payDeposit(id, deposit, "USDC", 1_000_000)
		e.sendETH(deposit, big.NewInt(1))
		bad = append(bad, id)
	}
	chain := &toggling{SweepChain: e.sweeper, e: e, split: common.HexToAddress(hostile), c: c, owner: owner, sent: map[common.Hash]bool{}}
	h := e.sweeperOf(chain)
	var last error
	wait.Until(t, "the hostile split held back", 60*time.Second, func() bool {
		_, last = h.Handle(e.ctx)
		return errors.Is(last, settlement.ErrSweepGas) && e.state(good[0]).Swept()
	})
	if !strings.Contains(last.Error(), hostile) {
		t.Fatalf("the pass error %v does not name the split %s", last, hostile)
	}
	for range 10 {
		_, last = h.Handle(e.ctx)
		e.blockPasses()
	}
	if n := chain.sweeps(); n != 1 {
		t.Fatalf("%d sweeps of the split's deposits sent, want the one that reverted", n)
	}
	if !errors.Is(last, settlement.ErrSweepGas) {
		t.Fatalf("a pass while the split is held back returned %v", last)
	}
	for _, id := range bad {
		if len(e.state(id).Sweeps) != 0 {
			t.Fatalf("receipt %s swept", id)
		}
	}
}
