package chain_test

import (
	"context"
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/chain/contracts"
	"github.com/payledger/payledger/domain/onchain"
	"github.com/payledger/payledger/domain/subscription"
)

// TestSpendPermissionTypedDataMatchesTheManager: the typed-data hash built for the API is the
// one the deployed manager computes (getHash), and the signer recovers from it.
func TestSpendPermissionTypedDataMatchesTheManager(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dc, err := chain.StartDevChain(ctx, chain.DevChainOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer dc.Close()
	usdc, _ := dc.Token("USDC")
	customer := dc.Accounts[0]
	now := time.Now().Unix()
	p := subscription.Permission{Account: strings.ToLower(customer.Address.Hex()), Spender: dc.Operator.Address.Hex(),
		Token: usdc.Address.Hex(), Allowance: "10000000", Period: 30 * 24 * 3600, Start: now - 60, End: now + 365*24*3600,
		Salt: "0x2a", ExtraData: "0x"}
	cp, err := chain.SpendPermissionContract(p)
	if err != nil {
		t.Fatal(err)
	}
	td := chain.SpendPermissionTypedData(int64(dc.ChainID), dc.SpendPermissionManager.Hex(), cp)
	hash, _, err := apitypes.TypedDataAndHash(td)
	if err != nil {
		t.Fatal(err)
	}
	mgr, err := contracts.NewSpendPermissionManager(dc.SpendPermissionManager, dc.Backend().Client())
	if err != nil {
		t.Fatal(err)
	}
	onChain, err := mgr.GetHash(&bind.CallOpts{Context: ctx}, cp)
	if err != nil {
		t.Fatal(err)
	}
	if string(onChain[:]) != string(hash) {
		t.Fatalf("hash %x, manager's %x", hash, onChain)
	}
	sig, err := crypto.Sign(hash, customer.Key)
	if err != nil {
		t.Fatal(err)
	}
	sig[64] += 27
	sp := chain.SpendPermissions{ChainID: int64(dc.ChainID), Manager: dc.SpendPermissionManager.Hex()}
	got, err := sp.Verify(p, hexutil.Encode(sig))
	if err != nil || got.Signer != strings.ToLower(customer.Address.Hex()) || got.Hash != hexutil.Encode(onChain[:]) {
		t.Fatalf("verify %+v, %v; want %s, hash %x", got, err, customer.Address.Hex(), onChain)
	}
	p.Allowance = "10000001" // any other permission recovers another address
	if got, _ := sp.Verify(p, hexutil.Encode(sig)); got.Signer == strings.ToLower(customer.Address.Hex()) {
		t.Fatal("a changed permission still recovers the customer")
	}
}

// TestSpendPermissionSpellings: the same values spelled differently (salt "42", "0x2a",
// "042"; allowance with leading zeros; extraData "" or "0x") are one permission: one hash,
// the manager's.
func TestSpendPermissionSpellings(t *testing.T) {
	t.Parallel()
	key, _ := crypto.GenerateKey()
	customer := strings.ToLower(crypto.PubkeyToAddress(key.PublicKey).Hex())
	sp := chain.SpendPermissions{ChainID: 8453, Manager: "0x1111111111111111111111111111111111111111"}
	base := subscription.Permission{Account: customer, Spender: "0x2222222222222222222222222222222222222222",
		Token: "0x3333333333333333333333333333333333333333", Allowance: "10000000", Period: 86400, Start: 1, End: 1 << 40,
		Salt: "42", ExtraData: "0x"}
	sign := func(p subscription.Permission) string {
		cp, err := chain.SpendPermissionContract(p)
		if err != nil {
			t.Fatal(err)
		}
		sig, err := chain.SignTypedData(chain.SpendPermissionTypedData(8453, sp.Manager, cp), key)
		if err != nil {
			t.Fatal(err)
		}
		return sig
	}
	want, err := sp.Verify(base, sign(base))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []func(*subscription.Permission){
		func(p *subscription.Permission) { p.Salt = "0x2a" },
		func(p *subscription.Permission) { p.Salt = "042" },
		func(p *subscription.Permission) { p.Allowance = "0010000000" },
		func(p *subscription.Permission) { p.ExtraData = "" },
		func(p *subscription.Permission) { p.Account = crypto.PubkeyToAddress(key.PublicKey).Hex() },
	} {
		p := base
		f(&p)
		got, err := sp.Verify(p, sign(p))
		if err != nil || got.Hash != want.Hash || got.Signer != customer {
			t.Fatalf("%+v: %+v %v, want hash %s", p, got, err, want.Hash)
		}
	}
}

// TestSpendPermissionSignatureAsTheManagerReadsIt: the manager (OpenZeppelin ECDSA) refuses a
// signature with v 0/1 or with s in the upper half of the curve order. Verify returns v 0/1 as
// 27/28, which the manager accepts, and refuses a high-s signature.
func TestSpendPermissionSignatureAsTheManagerReadsIt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dc, err := chain.StartDevChain(ctx, chain.DevChainOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer dc.Close()
	rpc, err := chain.Dial(ctx, dc.URL, chain.DevChainID)
	if err != nil {
		t.Fatal(err)
	}
	defer rpc.Close()
	op, err := dc.ChargeOperator(rpc)
	if err != nil {
		t.Fatal(err)
	}
	usdc, _ := dc.Token("USDC")
	customer := dc.Accounts[0]
	now := time.Now().Unix()
	p := subscription.Permission{Account: customer.Address.Hex(), Spender: dc.Operator.Address.Hex(),
		Token: usdc.Address.Hex(), Allowance: "10000000", Period: 30 * 24 * 3600, Start: now - 60, End: now + 365*24*3600,
		Salt: "7", ExtraData: "0x"}
	cp, err := chain.SpendPermissionContract(p)
	if err != nil {
		t.Fatal(err)
	}
	hash, _, err := apitypes.TypedDataAndHash(chain.SpendPermissionTypedData(int64(dc.ChainID), dc.SpendPermissionManager.Hex(), cp))
	if err != nil {
		t.Fatal(err)
	}
	low, err := crypto.Sign(hash, customer.Key) // v 0 or 1, low s
	if err != nil {
		t.Fatal(err)
	}
	high := append([]byte(nil), low...) // the same signature with s' = n - s and the other v
	s := new(big.Int).SetBytes(low[32:64])
	new(big.Int).Sub(crypto.S256().Params().N, s).FillBytes(high[32:64])
	high[64] ^= 1
	approves := func(sig string) bool {
		t.Helper()
		call, err := op.ApproveCall(p, sig)
		if err != nil {
			t.Fatal(err)
		}
		est, err := op.EstimateGas(ctx, []onchain.TxCall{call})
		if err != nil {
			t.Fatal(err)
		}
		return est[0].Revert == ""
	}
	if approves(hexutil.Encode(low)) || approves(hexutil.Encode(high)) {
		t.Fatal("the manager accepts v 0/1 or high s: the premise of this test is wrong")
	}
	sp := chain.SpendPermissions{ChainID: int64(dc.ChainID), Manager: dc.SpendPermissionManager.Hex()}
	got, err := sp.Verify(p, hexutil.Encode(low))
	if err != nil || got.Signer != strings.ToLower(customer.Address.Hex()) {
		t.Fatalf("v 0/1: %+v %v", got, err)
	}
	if raw, _ := hexutil.Decode(got.Signature); raw[64] != low[64]+27 || !approves(got.Signature) {
		t.Fatalf("v 0/1 is returned as %s, which the manager must accept", got.Signature)
	}
	high[64] += 27
	if _, err := sp.Verify(p, hexutil.Encode(high)); !errors.Is(err, chain.ErrBadSignature) || !strings.Contains(err.Error(), "upper half") {
		t.Fatalf("high s: %v, want ErrBadSignature naming it", err)
	}
}
