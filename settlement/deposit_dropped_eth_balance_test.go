package settlement_test

// A dropped ETH transfer a balance read held, seen again in its new block (stop 72).

import (
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/settlement"
)

// TestDroppedETHHeldByABalanceReadIsNotCreditedAgain: 0.004 ETH credited to a 10.00 receipt
// quoted 0.01 ETH; a reorg from 13 blocks before it mines the same transaction again in one of the
// first blocks of the new branch. The detector reads again only 6 blocks before its cursor: it drops the
// credit and does not see the transaction again, and its balance read (the 0.004 at the deposit,
// beyond the credits, which hold nothing now) credits it as a balance credit. A second detector
// (another serve process, its cursor before the reorg's fork) then reads the block the
// transaction was mined again in. It was recorded again next to the balance credit holding it:
// 0.008 received, 0.004 at the deposit. Now the dropped credit is held by the balance read while
// it was dropped: 0.004 received, and the 0.006 still due pays the receipt.
func TestDroppedETHHeldByABalanceReadIsNotCreditedAgain(t *testing.T) {
	t.Parallel()
	e := newDepositEnv(t)
	d, second := e.detector(), e.detector()
	second.Name = "second"
	st := e.receipt(1000)
	id, deposit := st.Receipt.ReceiptID, st.Receipt.DepositAddress
	e.quote(id, "0.01000000")
	e.step(d)
	e.step(second) // its cursor: the fork's block
	fork, err := e.sim.HeaderByNumber(e.ctx, nil)
	e.ok(err)
	var r *types.Receipt
	for range 12 {
		e.commit()
	}
	// Fees any block of the new branch takes: its base fee is back at the fork's.
	o := e.opts(e.buyer)
	o.Value, o.GasTipCap, o.GasFeeCap = big.NewInt(4_000_000_000_000_000), big.NewInt(50e9), big.NewInt(500e9)
	tx, err := chain.SendETH(o, e.sim, common.HexToAddress(deposit))
	e.ok(err)
	e.mined(tx)
	paid := e.headNumber()
	e.step(d)
	e.want(id, receipt.StatusPending, "0") // seen, not confirmed
	e.ok(e.b.Fork(fork.Hash()))
	e.b.Rollback()
	// The pool takes the fork on its own goroutine and puts the transaction back; sent again
	// (already known, or refused until then: its nonce is used at the old head) until it holds it.
	wait.Until(t, "the pool to take the transaction again", 20*time.Second, func() bool {
		_ = e.sim.SendTransaction(e.ctx, tx)
		var st struct{ Pending hexutil.Uint }
		e.ok(e.rpc.Backend().Client().CallContext(e.ctx, &st, "txpool_status"))
		return st.Pending == 1
	})
	e.mined(tx)
	r, err = e.sim.TransactionReceipt(e.ctx, tx.Hash())
	e.ok(err)
	if again := r.BlockNumber.Uint64(); again+7 > paid {
		t.Fatalf("mined again in block %d: the detector's rescan from %d reads it", again, paid-6)
	}
	for e.headNumber() <= paid {
		e.commit()
	}
	e.step(d) // the credit dropped; the balance credits the 0.004
	e.commit()
	e.commit()
	e.step(d)
	st = e.want(id, receipt.StatusPending, "0.004")
	if last := st.Credits[len(st.Credits)-1]; len(st.Credits) != 2 || !st.Credits[0].Dropped || last.LogIndex != settlement.BalanceLogIndex || !last.Counts() {
		t.Fatalf("after the reorg: credits %+v, want the transfer dropped and a balance credit", st.Credits)
	}
	e.step(second) // reads the transaction's new block
	if st = e.state(id); st.Status != receipt.StatusPending || st.AmountReceived() != "0.004" {
		t.Fatalf("after the second detector: %s, received %s (the deposit holds 0.004), credits %+v", st.Status, st.AmountReceived(), st.Credits)
	}
	e.mined(e.payETH(deposit, big.NewInt(6_000_000_000_000_000)))
	e.commit()
	e.step(d)
	e.want(id, receipt.StatusPaid, "0.01")
}
