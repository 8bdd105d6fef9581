package contracts_test

import (
	"bytes"
	"context"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/payledger/payledger/chain/contracts"
)

// eip1167Runtime is the 45-byte code of an EIP-1167 clone of impl.
func eip1167Runtime(impl common.Address) []byte {
	code := common.FromHex("0x363d3d373d3d3d363d73")
	code = append(code, impl.Bytes()...)
	return append(code, common.FromHex("0x5af43d82803e903d91602b57fd5bf3")...)
}

func TestDepositSweepMovesTokensAndETHToItsSplit(t *testing.T) {
	e := newDepositEnv(t)
	ctx := context.Background()
	key := receiptKey("rcpt_sweep")
	d := e.depositOf(key, e.split)
	if code, _ := e.client.CodeAt(ctx, d, nil); len(code) != 0 {
		t.Fatalf("deposit %s has code before its first sweep", d)
	}

	// Before anything is deployed, the payer pays 3.27 USDC, 1 USDT and 1 ETH to the address.
	e.mined(e.usdc.Transfer(e.opts(e.payer), d, big.NewInt(3_270_000)))
	e.mined(e.usdt.Transfer(e.opts(e.payer), d, big.NewInt(1_000_000)))
	if r := e.payETH(e.payer, d, eth(1)); r.GasUsed != 21_000 {
		t.Errorf("ETH to the undeployed deposit used %d gas, want 21000", r.GasUsed)
	}
	splitETH := e.ethBalance(e.split)

	// A stranger sweeps: the clone is deployed and everything goes to the split.
	keys := []contracts.DepositFactoryDepositKey{{ReceiptId: key, Split: e.split}}
	r := e.sweep(e.stranger, keys, e.usdcAddr, e.usdtAddr)
	impl, err := e.factory.Implementation(nil)
	if err != nil {
		t.Fatal(err)
	}
	if code, _ := e.client.CodeAt(ctx, d, nil); !bytes.Equal(code, eip1167Runtime(impl)) {
		t.Fatalf("code at the deposit = %x, want the EIP-1167 clone of %s", code, impl)
	}
	deployed := 0
	for _, l := range r.Logs {
		if ev, err := e.factory.ParseDepositDeployed(*l); err == nil {
			deployed++
			if ev.Deposit != d || ev.Split != e.split || ev.ReceiptId != key {
				t.Errorf("DepositDeployed = %+v", ev)
			}
		}
	}
	if deployed != 1 {
		t.Errorf("%d DepositDeployed events, want 1", deployed)
	}
	swept, failed := e.sweptAndFailed(r)
	if len(swept) != 3 || len(failed) != 0 {
		t.Fatalf("first sweep: %d Swept, %d SweepFailed; want 3 and 0", len(swept), len(failed))
	}
	for _, s := range swept {
		if s.Raw.Address != d || s.Split != e.split || s.ReceiptId != key {
			t.Errorf("Swept = %+v from %s", s, s.Raw.Address)
		}
	}
	wantBig(t, "split USDC", tokenBalance(t, e.usdc, e.split), big.NewInt(3_270_000))
	wantBig(t, "split USDT", tokenBalance(t, e.usdt, e.split), big.NewInt(1_000_000))
	wantBig(t, "split ETH gained", new(big.Int).Sub(e.ethBalance(e.split), splitETH), eth(1))
	wantBig(t, "deposit ETH", e.ethBalance(d), big.NewInt(0))

	// The split accounts the ETH (PaymentSplitter's receive() ran with enough gas).
	ps, err := contracts.NewPaymentSplit(e.split, e.client)
	if err != nil {
		t.Fatal(err)
	}
	payee, err := ps.Payee(nil, big.NewInt(0))
	if err != nil {
		t.Fatal(err)
	}
	due, err := ps.Releasable(nil, payee)
	if err != nil {
		t.Fatal(err)
	}
	wantBig(t, "split releasable ETH to the first payee", due, new(big.Int).Div(new(big.Int).Mul(eth(1), big.NewInt(9950)), big.NewInt(10_000)))

	// Late payments to the deployed deposit: ETH by a plain (estimated) transfer, and USDC.
	late := e.payETH(e.payer, d, eth(2))
	t.Logf("ETH transfer to a deployed deposit: %d gas", late.GasUsed)
	e.mined(e.usdc.Transfer(e.opts(e.payer), d, big.NewInt(500_000)))
	// The second sweep, by the operator, deploys nothing and moves both.
	r = e.sweep(e.operator, keys, e.usdcAddr, e.usdtAddr)
	for _, l := range r.Logs {
		if _, err := e.factory.ParseDepositDeployed(*l); err == nil {
			t.Error("second sweep deployed the deposit again")
		}
	}
	if swept, failed := e.sweptAndFailed(r); len(swept) != 2 || len(failed) != 0 {
		t.Errorf("second sweep: %d Swept, %d SweepFailed; want 2 and 0", len(swept), len(failed))
	}
	wantBig(t, "split USDC", tokenBalance(t, e.usdc, e.split), big.NewInt(3_770_000))
	wantBig(t, "split ETH gained", new(big.Int).Sub(e.ethBalance(e.split), splitETH), eth(3))

	// Anyone may also flush the deposit itself, without the factory.
	e.mined(e.usdt.Transfer(e.opts(e.payer), d, big.NewInt(7)))
	e.payETH(e.payer, d, big.NewInt(11))
	dep := e.deposit(d)
	e.mined(dep.FlushToken(e.opts(e.stranger), key, e.split, e.usdtAddr))
	e.mined(dep.FlushETH(e.opts(e.stranger), key, e.split))
	wantBig(t, "split USDT", tokenBalance(t, e.usdt, e.split), big.NewInt(1_000_007))
	wantBig(t, "split ETH gained", new(big.Int).Sub(e.ethBalance(e.split), splitETH), new(big.Int).Add(eth(3), big.NewInt(11)))
	for _, tok := range []*contracts.TestToken{e.usdc, e.usdt} {
		wantBig(t, "deposit token balance", tokenBalance(t, tok, d), big.NewInt(0))
	}
	wantBig(t, "deposit ETH", e.ethBalance(d), big.NewInt(0))
}

func TestDepositAddressBindsReceiptAndSplit(t *testing.T) {
	e := newDepositEnv(t)
	a := e.depositOf(receiptKey("rcpt_a"), e.split)
	if b := e.depositOf(receiptKey("rcpt_b"), e.split); b == a {
		t.Error("two receipts share a deposit address")
	}
	if b := e.depositOf(receiptKey("rcpt_a"), addr(e.stranger)); b == a {
		t.Error("one receipt has the same deposit address for two splits")
	}
	impl, err := e.factory.Implementation(nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := crypto.CreateAddress(e.factoryAddr, 1); impl != want {
		t.Errorf("implementation = %s, want the factory's first CREATE %s", impl, want)
	}
}
