package settlement_test

import (
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/chain/contracts"
	"github.com/payledger/payledger/domain/receipt"
)

// TestSweptElsewhereRecordsOnlyConfirmedSweeps: our sweep, mined deep, found the deposit emptied
// by a stranger's sweep, so the sweeper records the deposit's sweeps read from the chain. It
// recorded every Swept event up to the head: a stranger's sweep of a later transfer mined one
// block ago was recorded as DepositSwept at depth 1, and a fork dropping it left the receipt
// swept for good with the transfer at its deposit (the sweeper's own sweeps count only
// CHAIN_CONFIRMATIONS deep). Now only the sweeps up to our sweep's block are recorded; the later
// one is recorded once our next sweep, finding the deposit empty, is deep.
func TestSweptElsewhereRecordsOnlyConfirmedSweeps(t *testing.T) {
	t.Parallel()
	e := newDepositEnv(t)
	d := e.detector()
	st := e.paidDeposit(d)
	id, deposit := st.Receipt.ReceiptID, st.Receipt.DepositAddress
	s, h := e.sweeping()
	f, err := contracts.NewDepositFactory(e.factory, e.sim)
	e.ok(err)
	key := []contracts.DepositFactoryDepositKey{{ReceiptId: chain.DepositReceiptKey(id), Split: e.split}}
	first, err := f.Sweep(e.opts(e.buyer), key, []common.Address{e.usdc})
	e.ok(err)
	e.mined(first) // a stranger sweeps the 3 USDC first
	if out, err := h.Handle(e.ctx); err != nil || out.Sent != 1 {
		t.Fatalf("our sweep: %+v %v", out, err)
	}
	e.commit() // ours mined, finding the deposit empty
	more := e.payToken(e.usdc, deposit, 1_000_000)
	o := e.opts(e.buyer)
	o.GasLimit = 1_000_000 // estimated before the transfer it sweeps is mined
	second, err := f.Sweep(o, key, []common.Address{e.usdc})
	e.ok(err)
	e.mined(more, second) // a later transfer, swept by the stranger: depth 1; ours is 2 deep
	if out, err := h.Handle(e.ctx); err != nil || out.Settled != 1 {
		t.Fatalf("settling our sweep: %+v %v", out, err)
	}
	e.synced()
	for _, w := range e.state(id).Sweeps {
		if strings.EqualFold(w.TransactionHash, second.Hash().Hex()) {
			t.Fatalf("the stranger's sweep %s recorded at depth 1: %+v", second.Hash().Hex(), e.state(id).Sweeps)
		}
	}
	if n := e.count(id, receipt.EventDepositSwept); n != 1 {
		t.Fatalf("%d DepositSwept, want the stranger's first sweep only", n)
	}
	// The later transfer confirmed changes the receipt; it is checked again and the stranger's
	// second sweep, deep by then, is recorded.
	e.commit()
	e.step(d)
	if _, ok := e.sweptOut(s, h, st, 6); !ok || e.count(id, receipt.EventDepositSwept) != 2 {
		t.Fatalf("the later sweep not recorded once deep: %+v unswept %v", e.state(id).Sweeps, e.state(id).Unswept())
	}
}
