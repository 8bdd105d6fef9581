package chain_test

import (
	"bytes"
	"context"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient/simulated"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/chain/contracts"
)

// TestDepositAddressOffChainMatchesTheChain computes deposit addresses in Go before anything is
// deployed, checks them against the factory's view, then pays one, has it swept and finds the
// clone deployed at exactly that address.
func TestDepositAddressOffChainMatchesTheChain(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	factoryAddr, tx, factory, err := contracts.DeployDepositFactory(e.opts(e.operator), e.sim)
	e.ok(err)
	e.mined(tx)

	impl, err := factory.Implementation(nil)
	e.ok(err)
	if got := chain.DepositImplementation(factoryAddr); got != impl {
		t.Fatalf("DepositImplementation = %s, the factory's implementation is %s", got, impl)
	}
	ids := []string{"rcpt_0193a5b2c4d5e6f708192a3b4c5d", "rcpt_0193a5b2c4d5e6f708192a3b4c5e", "", "reçu-№1", string(bytes.Repeat([]byte("x"), 1000))}
	seen := map[common.Address]string{}
	for _, id := range ids {
		for _, split := range []common.Address{e.split, e.elsewhere} {
			key := chain.DepositReceiptKey(id)
			if key != crypto.Keccak256Hash([]byte(id)) {
				t.Errorf("DepositReceiptKey(%q) is not keccak256 of the id", id)
			}
			got := chain.DepositAddress(factoryAddr, id, split)
			want, err := factory.DepositAddress(nil, key, split)
			e.ok(err)
			if got != want {
				t.Errorf("DepositAddress(%q, %s) = %s, the factory says %s", id, split, got, want)
			}
			if other, dup := seen[got]; dup {
				t.Errorf("deposit address %s shared by %q and %q", got, other, id)
			}
			seen[got] = id
		}
	}

	// Paid and swept: the clone is deployed at the address computed off-chain.
	id := ids[0]
	d := chain.DepositAddress(factoryAddr, id, e.split)
	e.mined(e.payToken(e.usdc, e.buyer, d, 3_270_000))
	sweep, err := factory.Sweep(e.opts(e.stranger), []contracts.DepositFactoryDepositKey{{ReceiptId: chain.DepositReceiptKey(id), Split: e.split}}, []common.Address{e.usdc})
	e.ok(err)
	e.mined(sweep)
	r, err := e.sim.TransactionReceipt(ctx, sweep.Hash())
	e.ok(err)
	var deployed []common.Address
	for _, l := range r.Logs {
		if ev, err := factory.ParseDepositDeployed(*l); err == nil {
			deployed = append(deployed, ev.Deposit)
		}
	}
	if len(deployed) != 1 || deployed[0] != d {
		t.Errorf("deployed %v, want [%s]", deployed, d)
	}
	code, err := e.sim.CodeAt(ctx, d, nil)
	e.ok(err)
	if len(code) != 45 {
		t.Errorf("code at the computed address: %d bytes, want the 45-byte EIP-1167 clone", len(code))
	}
	got, err := e.token(e.usdc).BalanceOf(nil, e.split)
	e.ok(err)
	if got.Cmp(big.NewInt(3_270_000)) != 0 {
		t.Errorf("split USDC = %s, want 3270000", got)
	}
}

// TestDepositAddressVector pins the rule (receipt key, salt, implementation, init code) to one
// worked example, so that a change to any part shows here and not as lost payments. The factory
// is the first contract of a fixed key (keccak256("payledger deposit vector")); the vector is
// what that factory's depositAddress answers, checked here on a simulated chain.
func TestDepositAddressVector(t *testing.T) {
	t.Parallel()
	const vector = "0xc36700761D491f3B959C1523bdd969771CF7e6f8"
	deployer, err := crypto.ToECDSA(crypto.Keccak256([]byte("payledger deposit vector")))
	if err != nil {
		t.Fatal(err)
	}
	factory := crypto.CreateAddress(addr(deployer), 0)
	split := common.HexToAddress("0x70997970C51812dc3A010C7d01b50e0d17dc79C8")
	key := chain.DepositReceiptKey("rcpt_example")
	if want := crypto.Keccak256Hash(append(key.Bytes(), common.LeftPadBytes(split.Bytes(), 32)...)); chain.DepositSalt(key, split) != want {
		t.Errorf("salt = %s, want keccak256(abi.encode(key, split)) %s", chain.DepositSalt(key, split), want)
	}
	if got := chain.DepositAddress(factory, "rcpt_example", split); got != common.HexToAddress(vector) {
		t.Errorf("DepositAddress = %s, want %s", got, vector)
	}
	if got := chain.DepositAddressOfKey(factory, key, split); got != common.HexToAddress(vector) {
		t.Errorf("DepositAddressOfKey = %s, want %s", got, vector)
	}

	b := simulated.NewBackend(types.GenesisAlloc{addr(deployer): {Balance: eth(1000)}})
	t.Cleanup(func() { _ = b.Close() })
	id, err := b.Client().ChainID(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	o, err := bind.NewKeyedTransactorWithChainID(deployer, id)
	if err != nil {
		t.Fatal(err)
	}
	deployed, _, f, err := contracts.DeployDepositFactory(o, b.Client())
	if err != nil {
		t.Fatal(err)
	}
	b.Commit()
	if deployed != factory {
		t.Fatalf("factory deployed at %s, want %s", deployed, factory)
	}
	onChain, err := f.DepositAddress(nil, key, split)
	if err != nil {
		t.Fatal(err)
	}
	if onChain != common.HexToAddress(vector) {
		t.Errorf("the factory's depositAddress = %s, want %s", onChain, vector)
	}
}
