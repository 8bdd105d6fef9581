package settlement_test

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/payledger/payledger/chain/contracts"
	"github.com/payledger/payledger/domain/onchain"
)

// TestSweepIntoASplitEmptiedAfterItsEstimate: a one-deposit sweep is estimated while the
// merchant's split holds USDC; releases of that split, mined first, empty it, so the sweep's
// transfer writes the split's balance from zero, which the estimate did not price (on the
// development chain's rules, 99,087 gas more). The estimate's 20% margin did not cover it and the
// sweep ran out of gas (115,212 of 116,828); the limit now has a fixed headroom per split and
// token (chain.SweepGasSplitHeadroom), still within the sweep's ceiling.
func TestSweepIntoASplitEmptiedAfterItsEstimate(t *testing.T) {
	t.Parallel()
	e := newSweepEnv(t)
	merchant, platform, st, _ := e.merchantWithSplit()
	e.pay(st.Address, 5_000_000)
	id, deposit := e.depositReceipt(merchant, st.Address, 100)
	e.payDeposit(id, deposit, "USDC", 1_000_000)

	nonce, err := e.rpc.Backend().PendingNonceAt(e.ctx, e.dev.Operator.Address)
	if err != nil {
		t.Fatal(err)
	}
	deposits := []onchain.SweepDeposit{{ReceiptID: id, Split: st.Address}}
	sweep, err := e.sweeper.SignSweep(e.ctx, nonce, deposits)
	if err != nil {
		t.Fatal(err)
	}
	// Every payee released (by anyone: release is open) and mined before the sweep: the split
	// holds no USDC when the sweep's transfer reaches it.
	ps, err := contracts.NewPaymentSplit(common.HexToAddress(st.Address), e.rpc.Backend())
	if err != nil {
		t.Fatal(err)
	}
	usdc, _ := e.dev.Token("USDC")
	for _, payee := range []string{merchant, platform} {
		tx, err := ps.Release0(e.devOpts(1), usdc.Address, common.HexToAddress(payee))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := bind.WaitMined(e.ctx, e.rpc.Backend(), tx); err != nil {
			t.Fatal(err)
		}
	}
	if b := e.balanceOf("USDC", st.Address); b.Sign() != 0 {
		t.Fatalf("the split still holds %s USDC units after its releases", b)
	}

	if ceiling := e.sweeper.GasCeiling(deposits); sweep.Gas > ceiling {
		t.Fatalf("the sweep's limit %d is above its ceiling %d", sweep.Gas, ceiling)
	}
	if err := e.op.Broadcast(e.ctx, sweep.Raw); err != nil {
		t.Fatal(err)
	}
	r, err := bind.WaitMinedHash(e.ctx, e.rpc.Backend(), common.HexToHash(sweep.Hash))
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != types.ReceiptStatusSuccessful {
		t.Fatalf("the sweep failed: %d gas used of %d (the estimate did not cover the emptied split)", r.GasUsed, sweep.Gas)
	}
	if b := e.balanceOf("USDC", st.Address); b.Cmp(big.NewInt(1_000_000)) != 0 {
		t.Fatalf("the split holds %s USDC units after the sweep, want the deposit's 1000000", b)
	}
	t.Logf("sweep: %d gas used of %d", r.GasUsed, sweep.Gas)
}
