package contracts_test

import (
	"context"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/node"

	"github.com/payledger/payledger/chain/contracts"
)

// HostileToken.Mode values.
const (
	hostileNormal uint8 = iota
	hostileRevert
	hostileReturnFalse
	hostileHook
)

func (e *depositEnv) deployHostile(mode uint8) (common.Address, *contracts.HostileToken) {
	e.t.Helper()
	a, tx, h, err := contracts.DeployHostileToken(e.opts(e.operator), e.client)
	e.mined(tx, err)
	e.mined(h.SetMode(e.opts(e.operator), mode))
	return a, h
}

type failure struct {
	deposit, token common.Address
	err            string
}

func TestDepositSweepIsolatesBadTokensAndRefusedETH(t *testing.T) {
	e := newDepositEnv(t)
	revAddr, rev := e.deployHostile(hostileRevert)
	falseAddr, falser := e.deployHostile(hostileReturnFalse)
	refuser, _ := e.deployToken(e.operator) // a contract without receive(): refuses ETH
	notToken := randomAddress(t)

	k1, k2, k3 := receiptKey("rcpt_1"), receiptKey("rcpt_2"), receiptKey("rcpt_3")
	d1, d2, d3 := e.depositOf(k1, e.split), e.depositOf(k2, refuser), e.depositOf(k3, e.split)
	e.mined(e.usdc.Transfer(e.opts(e.payer), d1, big.NewInt(1_000_000)))
	e.mined(rev.Mint(e.opts(e.payer), d1, big.NewInt(5)))
	e.mined(falser.Mint(e.opts(e.payer), d1, big.NewInt(6)))
	e.mined(e.usdc.Transfer(e.opts(e.payer), d2, big.NewInt(2_000_000)))
	e.payETH(e.payer, d2, eth(1))
	e.mined(e.usdt.Transfer(e.opts(e.payer), d3, big.NewInt(3_000_000)))

	keys := []contracts.DepositFactoryDepositKey{{ReceiptId: k1, Split: e.split}, {ReceiptId: k2, Split: refuser}, {ReceiptId: k3, Split: e.split}}
	r := e.sweep(e.stranger, keys, revAddr, e.usdcAddr, notToken, falseAddr, e.usdtAddr)

	wantBig(t, "split USDC", tokenBalance(t, e.usdc, e.split), big.NewInt(1_000_000))
	wantBig(t, "refusing split USDC", tokenBalance(t, e.usdc, refuser), big.NewInt(2_000_000))
	wantBig(t, "split USDT", tokenBalance(t, e.usdt, e.split), big.NewInt(3_000_000))
	wantBig(t, "d2 ETH (refused by its split, kept)", e.ethBalance(d2), eth(1))
	swept, failed := e.sweptAndFailed(r)
	if len(swept) != 3 {
		t.Errorf("%d Swept events, want 3 (USDC twice, USDT)", len(swept))
	}
	want := map[failure]bool{
		{d1, revAddr, "TokenCallFailed"}: true, {d1, falseAddr, "TokenCallFailed"}: true,
		{d1, notToken, "TokenCallFailed"}: true, {d2, notToken, "TokenCallFailed"}: true,
		{d3, notToken, "TokenCallFailed"}: true, {d2, common.Address{}, "ETHRejected"}: true,
	}
	got := map[failure]bool{}
	for _, f := range failed {
		got[failure{f.Deposit, f.Token, errorName(t, contracts.DepositMetaData, f.Reason)}] = true
	}
	for f := range want {
		if !got[f] {
			t.Errorf("no SweepFailed for %+v", f)
		}
	}
	for f := range got {
		if !want[f] {
			t.Errorf("unexpected SweepFailed %+v", f)
		}
	}

	// The bad token's units stay at the deposit, still bound to its split: once the token
	// behaves, the next sweep moves them there and nowhere else.
	e.mined(rev.SetMode(e.opts(e.operator), hostileNormal))
	e.sweep(e.stranger, keys[:1], revAddr)
	b, err := rev.BalanceOf(nil, e.split)
	if err != nil {
		t.Fatal(err)
	}
	wantBig(t, "split's once-reverting token", b, big.NewInt(5))
}

// TestDepositReentrantTokenCannotRedirect lets a token's transfer call back into the deposit
// and the factory, in the middle of a sweep, before the deposit's USDC is flushed.
func TestDepositReentrantTokenCannotRedirect(t *testing.T) {
	e := newDepositEnv(t)
	hostAddr, host := e.deployHostile(hostileHook)
	key := receiptKey("rcpt_reentry")
	d := e.depositOf(key, e.split)
	thief := randomAddress(t)
	keys := []contracts.DepositFactoryDepositKey{{ReceiptId: key, Split: e.split}}
	cases := []struct {
		name   string
		target common.Address
		data   []byte
		ok     bool
		revert string
	}{
		{"flushToken to the thief", d, pack(t, contracts.DepositMetaData, "flushToken", key, thief, e.usdcAddr), false, "NotThisDeposit"},
		{"flushETH to the thief", d, pack(t, contracts.DepositMetaData, "flushETH", key, thief), false, "NotThisDeposit"},
		{"sweep naming the thief as split", e.factoryAddr, pack(t, contracts.DepositFactoryMetaData, "sweep",
			[]contracts.DepositFactoryDepositKey{{ReceiptId: key, Split: thief}}, []common.Address{e.usdcAddr}), true, ""},
		{"flushToken to the split", d, pack(t, contracts.DepositMetaData, "flushToken", key, e.split, e.usdcAddr), true, ""},
	}
	total := big.NewInt(0)
	for _, c := range cases {
		e.mined(host.SetHook(e.opts(e.operator), c.target, c.data))
		e.mined(host.Mint(e.opts(e.payer), d, big.NewInt(1)))
		e.mined(e.usdc.Transfer(e.opts(e.payer), d, big.NewInt(1_000_000)))
		e.payETH(e.payer, d, big.NewInt(1_000))
		total.Add(total, big.NewInt(1_000_000))
		e.sweep(e.stranger, keys, hostAddr, e.usdcAddr)
		ok, err := host.HookOk(nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := host.HookResult(nil)
		if err != nil {
			t.Fatal(err)
		}
		if ok != c.ok || errorName(t, contracts.DepositMetaData, res) != c.revert {
			t.Errorf("%s: reentrant call ok=%v revert %q, want ok=%v %q", c.name, ok, errorName(t, contracts.DepositMetaData, res), c.ok, c.revert)
		}
		wantBig(t, c.name+": split USDC", tokenBalance(t, e.usdc, e.split), total)
		wantBig(t, c.name+": deposit USDC", tokenBalance(t, e.usdc, d), big.NewInt(0))
		wantBig(t, c.name+": deposit ETH", e.ethBalance(d), big.NewInt(0))
	}
	wantBig(t, "thief USDC", tokenBalance(t, e.usdc, thief), big.NewInt(0))
	wantBig(t, "thief ETH", e.ethBalance(thief), big.NewInt(0))
	b, err := host.BalanceOf(nil, e.split)
	if err != nil {
		t.Fatal(err)
	}
	wantBig(t, "split's hostile tokens", b, big.NewInt(int64(len(cases))))
}

func TestDepositSweepsManyInOneTransaction(t *testing.T) {
	e := newDepositEnv(t)
	const n = 200
	keys := e.fundDeposits("rcpt_batch", n, e.usdc, 1_000_000, eth(1))
	splitETH := e.ethBalance(e.split)
	r := e.sweep(e.stranger, keys, e.usdcAddr, e.usdtAddr)
	t.Logf("first sweep of %d deposits (2 tokens listed, every third with ETH): %d gas, %d a deposit", n, r.GasUsed, r.GasUsed/n)
	if r.GasUsed > txGasCap {
		t.Errorf("sweep of %d deposits used %d gas, over the %d transaction cap", n, r.GasUsed, txGasCap)
	}
	swept, failed := e.sweptAndFailed(r)
	if wantSwept := n + (n+2)/3; len(swept) != wantSwept || len(failed) != 0 {
		t.Errorf("%d Swept and %d SweepFailed, want %d and 0", len(swept), len(failed), wantSwept)
	}
	wantBig(t, "split USDC", tokenBalance(t, e.usdc, e.split), big.NewInt(n*1_000_000))
	wantBig(t, "split ETH gained", new(big.Int).Sub(e.ethBalance(e.split), splitETH), eth((n+2)/3))
}

// TestDepositSweepWithTooLittleGasNeverSkips sends one sweep with a range of gas limits below the
// estimate: each either reverts as a whole (OutOfGas) or sweeps every deposit; none succeeds
// having left funds behind as a reported failure. The last token's transfer is legitimately
// dear (its hook deploys ten deposits), so 1/64 of the gas it is given is enough for the sweep
// to carry on after it runs out: the case where a caught failure would hide a lack of gas.
func TestDepositSweepWithTooLittleGasNeverSkips(t *testing.T) {
	for _, rules := range []struct {
		name  string
		rules func(*node.Config, *ethconfig.Config)
	}{{"osaka", osakaRules}, {"dev-default", nil}} {
		t.Run(rules.name, func(t *testing.T) {
			e := newDepositEnvRules(t, rules.rules)
			dearAddr, dear := e.deployHostile(hostileHook)
			var hookKeys []contracts.DepositFactoryDepositKey
			for i := 0; i < 10; i++ {
				hookKeys = append(hookKeys, contracts.DepositFactoryDepositKey{ReceiptId: receiptKey("rcpt_hook-" + itoa(i)), Split: e.split})
			}
			e.mined(dear.SetHook(e.opts(e.operator), e.factoryAddr, pack(t, contracts.DepositFactoryMetaData, "sweep", hookKeys, []common.Address{})))
			keys := e.fundDeposits("rcpt_gas", 5, e.usdc, 1_000_000, eth(1))
			last := e.depositOf(keys[4].ReceiptId, e.split)
			e.mined(e.usdt.Transfer(e.opts(e.payer), last, big.NewInt(9)))
			e.mined(dear.Mint(e.opts(e.payer), last, big.NewInt(3)))
			sweepWithTooLittleGas(t, e, keys, []common.Address{e.usdcAddr, e.usdtAddr, dearAddr})
			wantBig(t, "split USDC", tokenBalance(t, e.usdc, e.split), big.NewInt(5_000_000))
			wantBig(t, "split USDT", tokenBalance(t, e.usdt, e.split), big.NewInt(9))
			got, err := dear.BalanceOf(nil, e.split)
			if err != nil {
				t.Fatal(err)
			}
			wantBig(t, "split's dear token", got, big.NewInt(3))
			for _, k := range keys {
				wantBig(t, "deposit ETH", e.ethBalance(e.depositOf(k.ReceiptId, k.Split)), big.NewInt(0))
			}
		})
	}
}

// sweepWithTooLittleGas sends the sweep with rising gas limits below the estimate until one
// succeeds (or the estimate itself is sent), failing if a successful one reported a failure.
func sweepWithTooLittleGas(t *testing.T, e *depositEnv, keys []contracts.DepositFactoryDepositKey, tokens []common.Address) {
	t.Helper()
	o := e.opts(e.stranger)
	o.NoSend = true
	est, err := e.factory.Sweep(o, keys, tokens)
	if err != nil {
		t.Fatal(err)
	}
	reverted := 0
	for _, limit := range []uint64{est.Gas() / 2, est.Gas() * 3 / 4, est.Gas() * 9 / 10, est.Gas() * 19 / 20,
		est.Gas() * 97 / 100, est.Gas() * 99 / 100, est.Gas() - 500, est.Gas()} {
		o := e.opts(e.stranger)
		o.GasLimit = limit
		tx, err := e.factory.Sweep(o, keys, tokens)
		if err != nil {
			t.Fatal(err)
		}
		e.backend.Commit()
		r, err := e.client.TransactionReceipt(context.Background(), tx.Hash())
		if err != nil {
			t.Fatalf("gas %d: %v", limit, err)
		}
		if r.Status != types.ReceiptStatusSuccessful {
			reverted++
			continue
		}
		if _, failed := e.sweptAndFailed(r); len(failed) != 0 {
			t.Errorf("gas %d of %d: the sweep succeeded reporting %d failures", limit, est.Gas(), len(failed))
		}
		t.Logf("estimate %d; %d lower limits reverted; %d succeeded", est.Gas(), reverted, limit)
		break
	}
	if reverted == 0 {
		t.Error("no limit below the estimate reverted: nothing was tested")
	}
}
