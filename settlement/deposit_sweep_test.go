package settlement_test

import (
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/settlement"
)

// Paid at their deposit addresses by plain transfers, receipts wait for the sweep (the
// distributor sends nothing for them), are swept in one transaction for all their deposits,
// then distributed to reconciled: the payees get their shares to the base unit and the deposits
// are empty. A later transfer to a swept deposit is swept again.
func TestSweepDepositsThenDistribute(t *testing.T) {
	t.Parallel()
	e := newSweepEnv(t)
	merchant, platform, st, sender := e.merchantWithSplit()
	totals := []money.Cents{1231, 456, 789, 1000, 1, 99999}
	ids, deposits, units := e.paidAt(merchant, st.Address, totals)
	sum := new(big.Int)
	for _, u := range units {
		sum.Add(sum, big.NewInt(u))
	}
	e.listedPaid(ids[len(ids)-1])

	// Not swept yet: the distributor waits (nothing is in the split).
	dist := e.distributor(sender)
	if out, err := dist.Handle(e.ctx); err != nil || out.Releases != 0 || len(out.Reconciled) != 0 {
		t.Fatalf("distribution before the sweep: %+v %v", out, err)
	}

	h := e.sweeperOf(e.sweeper)
	out := e.sweepAll(h, ids...)
	if out.Sent != 1 || out.Deposits != len(ids) || e.sweepTxs() != 1 {
		t.Fatalf("%d sweep transactions for %d deposits (%d recorded), want 1 for %d", out.Sent, out.Deposits, e.sweepTxs(), len(ids))
	}
	for i, id := range ids {
		sw := e.sweptEvents(id)
		want := units[i]
		if len(sw) != 1 || sw[0].Token != "USDC" || sw[0].AmountUnits != big.NewInt(want).String() || sw[0].BlockNumber == 0 || sw[0].TransactionHash == "" {
			t.Errorf("receipt %s swept %+v, want one USDC sweep of %d", id, sw, want)
		}
		if e.state(id).Status != receipt.StatusPaid {
			t.Errorf("a sweep changed the status: %s", e.state(id).Status)
		}
		if b := e.balanceOf("USDC", deposits[i]); b.Sign() != 0 {
			t.Errorf("deposit %s still holds %s", deposits[i], b)
		}
	}
	if got := e.balanceOf("USDC", st.Address); got.Cmp(sum) != 0 {
		t.Fatalf("split holds %s, want %s", got, sum)
	}

	e.until(dist, ids...)
	wantMerchant := new(big.Int).Div(new(big.Int).Mul(sum, big.NewInt(9950)), big.NewInt(10000))
	wantPlatform := new(big.Int).Div(new(big.Int).Mul(sum, big.NewInt(50)), big.NewInt(10000))
	if m, p := e.usdcBalance(merchant), e.usdcBalance(platform); m.Cmp(wantMerchant) != 0 || p.Cmp(wantPlatform) != 0 {
		t.Fatalf("merchant %s platform %s, want %s and %s", m, p, wantMerchant, wantPlatform)
	}

	// A later transfer to a swept (now deployed) deposit: credited, swept again.
	e.sweptAgain(h, ids[0], deposits[0])
	// Nothing more to sweep: a pass sends nothing.
	if out, err := h.Handle(e.ctx); err != nil || out.Sent != 0 {
		t.Fatalf("an idle pass: %+v %v", out, err)
	}
}

// sweptAgain pays 5 USDC more to the swept deposit of receipt id and sweeps it again: a second
// DepositSwept of exactly that, the deposit empty.
func (e *sweepEnv) sweptAgain(h *settlement.SweepDepositsHandler, id, deposit string) {
	e.t.Helper()
	e.payDeposit(id, deposit, "USDC", 5_000_000)
	if e.state(id).Swept() {
		e.t.Fatal("a later transfer counts as swept")
	}
	again := e.sweepAll(h, id)
	if sw := e.sweptEvents(id); again.Sent != 1 || again.Deposits != 1 || len(sw) != 2 || sw[1].AmountUnits != "5000000" {
		e.t.Fatalf("swept again: %+v %+v", again, sw)
	}
	if b := e.balanceOf("USDC", deposit); b.Sign() != 0 {
		e.t.Fatalf("the deposit still holds %s", b)
	}
	// ETH to the deployed deposit (its receive()): swept as ETH to the split.
	split := e.state(id).DepositSplit()
	before := e.balanceOf("ETH", split)
	e.mu.Lock()
	opts := e.devOpts(0)
	opts.Value = big.NewInt(10_000_000_000_000_000)
	tx, err := chain.SendETH(opts, e.rpc.Backend(), common.HexToAddress(deposit))
	e.mu.Unlock()
	if err != nil {
		e.t.Fatal(err)
	}
	r, err := bind.WaitMined(e.ctx, e.rpc.Backend(), tx)
	if err != nil {
		e.t.Fatal(err)
	}
	e.credit(id, receipt.DepositTransferSeen{TransactionHash: tx.Hash().Hex(), LogIndex: receipt.ETHLogIndex, BlockNumber: r.BlockNumber.Uint64(),
		BlockHash: r.BlockHash.Hex(), Sender: strings.ToLower(e.dev.Accounts[0].Address.Hex()), Token: "ETH", AmountUnits: opts.Value.String(), Decimals: 18})
	e.sweepAll(h, id)
	if sw := e.sweptEvents(id); len(sw) != 3 || sw[2].Token != "ETH" || sw[2].AmountUnits != opts.Value.String() {
		e.t.Fatalf("ETH swept: %+v", sw)
	}
	if b, got := e.balanceOf("ETH", deposit), new(big.Int).Sub(e.balanceOf("ETH", split), before); b.Sign() != 0 || got.Cmp(opts.Value) != 0 {
		e.t.Fatalf("ETH: the deposit holds %s, the split got %s", b, got)
	}
}

// paidAt makes a receipt of each total paid at its deposit in USDC (the first overpaid by one
// base unit: it goes to the split too); it returns their ids, deposits and the units paid.
func (e *sweepEnv) paidAt(merchant, split string, totals []money.Cents) (ids, deposits []string, units []int64) {
	e.t.Helper()
	for i, c := range totals {
		id, dep := e.depositReceipt(merchant, split, c)
		u := int64(c) * 10_000 // USD cents to USDC base units
		if i == 0 {
			u++
		}
		e.payDeposit(id, dep, "USDC", u)
		if e.state(id).Status != receipt.StatusPaid {
			e.t.Fatalf("receipt %s: %s, want paid", id, e.state(id).Status)
		}
		ids, deposits, units = append(ids, id), append(deposits, dep), append(units, u)
	}
	return ids, deposits, units
}
