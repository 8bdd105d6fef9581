package settlement_test

// ETH dust credited by a deposit's balance, then seen again by a reorg's rescan (stop 71).

import (
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/settlement"
)

// TestETHDustHeldByABalanceCreditIsNotCountedAgainAfterAReorg: a 3.00 receipt quoted 0.003 ETH
// with 20 credits is paid 0.00292 ETH (0.00005 short of the 1% tolerance). Two ETH transfers of
// 0.00002 each (under 1% and under what is due) are dust: not credited by transaction, but the
// balance read credits them as one balance credit of 0.00004 (it is 1%). A reorg then replaces
// the cursor's block, and the rescan judges the two transfers again: with 0.00001 now due, a
// 0.00002 transfer is no dust any more. It was recorded next to the balance credit that already
// holds it, and the receipt was paid by 0.00298 ETH it never received (0.00296 at the deposit).
// Now a transfer mined at or before a balance credit's block is held by it: nothing is added, the
// receipt stays pending until the rest comes, and the rest pays it. The balance credit names the
// dust's sender (stop 72: DepositTransferSeen.Senders).
func TestETHDustHeldByABalanceCreditIsNotCountedAgainAfterAReorg(t *testing.T) {
	t.Parallel()
	e := newDepositEnv(t)
	d := e.detector()
	st := e.receipt(300)
	id, deposit := st.Receipt.ReceiptID, st.Receipt.DepositAddress
	e.quote(id, "0.00300000") // 1%: 0.00003 ETH; paid from 0.00297
	e.step(d)
	units := make([]*types.Transaction, 0, receipt.DustFreeCredits)
	for range receipt.DustFreeCredits - 1 {
		units = append(units, e.payToken(e.usdc, deposit, 1))
	}
	e.mined(append(units, e.payETH(deposit, big.NewInt(2_920_000_000_000_000)))...)
	e.commit()
	e.step(d)
	if st := e.state(id); len(st.Credits) != receipt.DustFreeCredits || st.Status != receipt.StatusPending {
		t.Fatalf("before the dust: %d credits, %s", len(st.Credits), st.Status)
	}
	dust := big.NewInt(20_000_000_000_000) // 0.00002 ETH
	e.mined(e.payETH(deposit, dust), e.payETH(deposit, dust))
	e.step(d) // the dust is read in its own block: not credited; the balance credits 0.00004
	for range 2 {
		e.commit()
	}
	e.step(d)
	st = e.state(id)
	last := st.Credits[len(st.Credits)-1]
	if len(st.Credits) != receipt.DustFreeCredits+1 || last.LogIndex != settlement.BalanceLogIndex || last.AmountUnits != "40000000000000" || !last.Counts() {
		t.Fatalf("after the dust: %d credits, the last %+v", len(st.Credits), last)
	}
	// Its senders are the dust's (stop 72): a refund of it has a recipient to name.
	if len(last.Senders) != 1 || !strings.EqualFold(last.Senders[0], e.buyerAddr().Hex()) {
		t.Fatalf("the balance credit's senders %v, want the dust's sender %s", last.Senders, e.buyerAddr().Hex())
	}
	parent, err := e.sim.HeaderByNumber(e.ctx, new(big.Int).SetUint64(e.headNumber()-1))
	e.ok(err)
	e.ok(e.b.Fork(parent.Hash())) // the cursor's block is replaced: the detector reads again from 6 blocks before it
	for range 3 {
		e.commit()
	}
	e.step(d)
	e.commit()
	e.step(d)
	received := st.AmountReceived()
	if st = e.state(id); st.Status != receipt.StatusPending || st.AmountReceived() != received || len(st.Credits) != receipt.DustFreeCredits+1 {
		t.Fatalf("after the rescan: %s, received %s (the deposit holds %s), %d credits, the last ones %+v",
			st.Status, st.AmountReceived(), received, len(st.Credits), st.Credits[receipt.DustFreeCredits-1:])
	}
	e.mined(e.payETH(deposit, big.NewInt(10_000_000_000_000))) // the 0.00001 still due
	for range 2 {
		e.commit()
	}
	e.step(d)
	if st := e.state(id); st.Status != receipt.StatusPaid {
		t.Fatalf("the rest: %s, want paid", st.Status)
	}
}

// headNumber is the number of the chain's newest block.
func (e *depositEnv) headNumber() uint64 {
	e.t.Helper()
	h, err := e.sim.HeaderByNumber(e.ctx, nil)
	e.ok(err)
	return h.Number.Uint64()
}
