package chain_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/chain/contracts"
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
	got, err := sp.Signer(p, hexutil.Encode(sig))
	if err != nil || got != strings.ToLower(customer.Address.Hex()) {
		t.Fatalf("signer %s, %v; want %s", got, err, customer.Address.Hex())
	}
	p.Allowance = "10000001" // any other permission recovers another address
	if got, _ := sp.Signer(p, hexutil.Encode(sig)); got == strings.ToLower(customer.Address.Hex()) {
		t.Fatal("a changed permission still recovers the customer")
	}
}
