package settlement_test

import (
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/payledger/payledger/domain/receipt"
)

// TestATransferInTheSweepsOwnBlockIsSweptToo (stop 69): a 3.00 receipt's deposit holds 20
// one-unit credits, two dust transfers of 29,999 units and the customer's 3 USDC; the operator's
// sweep moves 3,059,998 units, 59,998 more than the credits. A credited transfer of 30,000 units
// (1%) mined in the sweep's own block, after it, is not moved by it; before, "after the sweep" was
// by block only, so it looked swept (no larger than the excess) and waited at the deposit. The
// sweep's Swept event's log index is recorded now: it is swept by a second sweep and the deposit
// emptied.
func TestATransferInTheSweepsOwnBlockIsSweptToo(t *testing.T) {
	t.Parallel()
	e := newDepositEnv(t)
	d := e.detector()
	st := e.receipt(300)
	id, deposit := st.Receipt.ReceiptID, st.Receipt.DepositAddress
	e.step(d)
	txs := make([]*types.Transaction, 0, receipt.DustFreeCredits)
	for range receipt.DustFreeCredits {
		txs = append(txs, e.payToken(e.usdc, deposit, 1))
	}
	e.mined(txs...)
	e.mined(e.payToken(e.usdc, deposit, 29_999), e.payToken(e.usdc, deposit, 29_999))
	e.mined(e.payToken(e.usdc, deposit, 3_000_000))
	e.commit()
	e.step(d)
	e.want(id, receipt.StatusPaid, "3.00002")

	s, h := e.sweeping()
	out, err := h.Handle(e.ctx)
	if err != nil || out.Sent != 1 {
		t.Fatalf("the sweep: %+v %v", out, err)
	}
	later := e.payToken(e.usdc, deposit, 30_000) // into the pool after the sweep: the same block, after it
	e.mined(later)
	e.sameBlockAfterTheSweep(later)
	for range 3 {
		e.commit()
		e.step(d)
	}
	if c := e.state(id).Credits; !c[len(c)-1].Counts() || c[len(c)-1].AmountUnits != "30000" {
		t.Fatalf("the later transfer is not a confirmed credit: %+v", c[len(c)-1])
	}
	if _, ok := e.sweptOut(s, h, e.state(id), 8); !ok {
		st := e.state(id)
		t.Fatalf("the transfer after the sweep in its block not swept: sweeps %+v unswept %v, the deposit holds %d",
			st.Sweeps, st.Unswept(), e.depositHolds(s, deposit))
	}
	sw := e.state(id).Sweeps
	if got := sweptUSDC(t, e.state(id)); len(sw) != 2 || got.Int64() != 3_000_020+2*29_999+30_000 || sw[0].LogIndex == nil {
		t.Fatalf("sweeps %+v moved %s", sw, got)
	}
	e.commit()
	if out, err := h.Handle(e.ctx); err != nil || out.Sent != 0 {
		t.Fatalf("an idle pass: %+v %v", out, err)
	}
}

// sameBlockAfterTheSweep fails unless tx was mined in the block of the operator's only sweep,
// with its logs after the sweep's: what the test is about, which the pool's ordering decides.
func (e *depositEnv) sameBlockAfterTheSweep(tx *types.Transaction) {
	e.t.Helper()
	var hash string
	e.ok(e.pool.QueryRow(e.ctx, `SELECT tx_hash FROM operator_transactions WHERE kind = 'sweep'`).Scan(&hash))
	rs, err := e.sim.TransactionReceipt(e.ctx, common.HexToHash(hash))
	e.ok(err)
	rt, err := e.sim.TransactionReceipt(e.ctx, tx.Hash())
	e.ok(err)
	if rs.BlockNumber.Cmp(rt.BlockNumber) != 0 || rs.TransactionIndex >= rt.TransactionIndex {
		e.t.Fatalf("the transfer (block %s, index %d) is not after the sweep (block %s, index %d) in its block",
			rt.BlockNumber, rt.TransactionIndex, rs.BlockNumber, rs.TransactionIndex)
	}
}
