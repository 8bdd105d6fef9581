package settlement_test

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/domain/receipt"
)

// TestAnETHTransferInTheSweepsOwnBlockIsSweptToo (stop 70): a 3.00 receipt quoted 0.001 ETH holds
// 20 one-wei ETH credits, then 3 USDC pays it, and two ETH dust transfers of 0.000009 ETH are not
// credited; the operator's sweep moves 0.000018 ETH more than the ETH credits. A credited ETH
// transfer of 0.00001 (1%) mined in the sweep's own block, in a transaction after it, is not moved
// by it; before, an ETH credit (no log) in that block counted by the difference only, so it looked
// swept and waited at the deposit. The credit's and the sweep's transaction indices are recorded
// now: a second sweep moves it and the deposit is empty.
func TestAnETHTransferInTheSweepsOwnBlockIsSweptToo(t *testing.T) {
	t.Parallel()
	e := newDepositEnv(t)
	d := e.detector()
	st := e.receipt(300)
	id, deposit := st.Receipt.ReceiptID, st.Receipt.DepositAddress
	e.quote(id, "0.001")
	e.step(d)
	txs := make([]*types.Transaction, 0, receipt.DustFreeCredits)
	for range receipt.DustFreeCredits {
		txs = append(txs, e.payETH(deposit, big.NewInt(1)))
	}
	e.mined(txs...)
	e.mined(e.payToken(e.usdc, deposit, 3_000_000))
	e.commit()
	e.step(d)
	e.mined(e.payETH(deposit, big.NewInt(9e12)), e.payETH(deposit, big.NewInt(9e12))) // dust once paid: settled, no balance read
	e.commit()
	e.step(d)
	st = e.state(id)
	for _, c := range st.Credits {
		if c.AmountUnits == "9000000000000" || st.Status != receipt.StatusPaid {
			t.Fatalf("%s, credits %+v: want paid, the ETH dust not credited", st.Status, st.Credits)
		}
	}

	s, h := e.sweeping()
	out, err := h.Handle(e.ctx)
	if err != nil || out.Sent != 1 {
		t.Fatalf("the sweep: %+v %v", out, err)
	}
	o := e.opts(e.buyer)
	o.Value, o.GasLimit = big.NewInt(1e13), 100_000                     // estimated before the sweep deploys the deposit's code
	later, err := chain.SendETH(o, e.sim, common.HexToAddress(deposit)) // into the pool after the sweep: the same block, after it
	e.ok(err)
	e.mined(later)
	e.sameBlockAfterTheSweep(later)
	for range 3 {
		e.commit()
		e.step(d)
	}
	if c := e.state(id).Credits; !c[len(c)-1].Counts() || c[len(c)-1].AmountUnits != "10000000000000" || c[len(c)-1].TxIndex == nil {
		t.Fatalf("the later transfer is not a confirmed credit with its transaction index: %+v", c[len(c)-1])
	}
	ethAt := func() *big.Int {
		b, err := s.DepositBalance(e.ctx, deposit, "ETH")
		e.ok(err)
		return b
	}
	for range 8 {
		e.commit()
		_, err := h.Handle(e.ctx)
		e.ok(err)
		e.synced()
		if e.state(id).Swept() && ethAt().Sign() == 0 {
			break
		}
	}
	if st := e.state(id); !st.Swept() || ethAt().Sign() != 0 || len(st.Sweeps) < 3 || st.Sweeps[0].TxIndex == nil {
		t.Fatalf("the ETH after the sweep in its block not swept: sweeps %+v unswept %v, the deposit holds %s wei",
			st.Sweeps, st.Unswept(), ethAt())
	}
	e.commit()
	if out, err := h.Handle(e.ctx); err != nil || out.Sent != 0 {
		t.Fatalf("an idle pass: %+v %v", out, err)
	}
}
