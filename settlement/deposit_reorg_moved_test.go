package settlement_test

// A confirmed transfer whose block a reorg replaces and which is mined again at another log
// index (receipt.State.creditIndex).

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/domain/receipt"
)

// TestDepositMovedToAnotherLogIndexCountsOnce: 6 USDC confirmed on a 10.00 receipt, its block
// replaced from its parent, the same transaction mined again behind another transaction's log
// (log index 1): still 6.00 received, one credit, pending (it was paid, 12.00, two credits).
func TestDepositMovedToAnotherLogIndexCountsOnce(t *testing.T) {
	t.Parallel()
	e := newDepositEnvWith(t, 2)
	d := e.detector()
	st := e.receipt(1000)
	id := st.Receipt.ReceiptID
	e.step(d)
	parent, err := e.sim.HeaderByNumber(e.ctx, nil)
	e.ok(err)
	tx := e.payToken(e.usdc, st.Receipt.DepositAddress, 6_000_000)
	e.commit()
	e.commit()
	e.step(d)
	if st := e.want(id, receipt.StatusPending, "6.00"); len(st.Credits) != 1 || !st.Credits[0].Counts() || st.Credits[0].LogIndex != 0 {
		t.Fatalf("before the reorg: credits %+v", st.Credits)
	}
	e.ok(e.b.Fork(parent.Hash()))
	e.b.Rollback()
	e.poolEmpty() // the pool drops the forked-away transactions on its own goroutine
	e.b.Rollback()
	// Another transaction, paying more for its place, logs first in the new block.
	o := e.opts(e.buyers[1])
	o.GasTipCap, o.GasFeeCap = big.NewInt(50e9), big.NewInt(500e9)
	o.GasLimit = 200_000
	first, err := chain.SendToken(o, e.sim, e.usdt, crypto.PubkeyToAddress(depositKey(t).PublicKey), big.NewInt(1))
	e.ok(err)
	e.ok(e.sim.SendTransaction(e.ctx, tx))
	e.mined(first, tx)
	r, err := e.sim.TransactionReceipt(e.ctx, tx.Hash())
	e.ok(err)
	if len(r.Logs) != 1 || r.Logs[0].Index != 1 {
		t.Fatalf("the transfer mined again at log index %d, want 1", r.Logs[0].Index)
	}
	for range 3 {
		e.commit()
		e.step(d)
	}
	st = e.want(id, receipt.StatusPending, "6.00")
	if len(st.Credits) != 1 || !st.Credits[0].Counts() {
		t.Fatalf("after the reorg: credits %+v, want one counted", st.Credits)
	}
	if n := e.count(id, receipt.EventConfirmed); n != 0 {
		t.Fatalf("%d payments confirmed by 6 USDC on 10.00", n)
	}
}
