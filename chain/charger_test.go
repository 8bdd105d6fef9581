package chain_test

import (
	"context"
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	gethcommon "github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/chain/contracts"
	"github.com/payledger/payledger/domain/subscription"
)

// TestSpendChargerMovesThePriceToTheSplit: on the development chain with the real manager, a
// first charge approves and spends, moving exactly the amount from the customer to the split;
// a second charge in the same period exceeds the allowance and reverts, moving nothing.
func TestSpendChargerMovesThePriceToTheSplit(t *testing.T) {
	ctx := context.Background()
	dc, err := chain.StartDevChain(ctx, chain.DevChainOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer dc.Close()
	client := dc.Backend().Client()
	usdc, _ := dc.Token("USDC")
	customer, split := dc.Accounts[0], dc.Accounts[1]
	tok, err := contracts.NewTestToken(usdc.Address, client)
	if err != nil {
		t.Fatal(err)
	}
	// The customer's wallet lets the manager move its USDC (a smart wallet does this itself).
	opts, _ := bind.NewKeyedTransactorWithChainID(customer.Key, new(big.Int).SetUint64(dc.ChainID))
	tx, err := tok.Approve(opts, dc.SpendPermissionManager, abi.MaxUint256)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bind.WaitMined(ctx, client, tx); err != nil {
		t.Fatal(err)
	}
	now := time.Now().Unix()
	p := subscription.Permission{Account: customer.Address.Hex(), Spender: dc.Operator.Address.Hex(), Token: usdc.Address.Hex(),
		Allowance: "9990000", Period: 30 * 86400, Start: now - 3600, End: now + 365*86400, Salt: "1", ExtraData: "0x"}
	cp, err := chain.SpendPermissionContract(p)
	if err != nil {
		t.Fatal(err)
	}
	hash, _, err := apitypes.TypedDataAndHash(chain.SpendPermissionTypedData(int64(dc.ChainID), dc.SpendPermissionManager.Hex(), cp))
	if err != nil {
		t.Fatal(err)
	}
	sig, _ := crypto.Sign(hash, customer.Key)
	sig[64] += 27
	charger, err := chain.NewSpendCharger(dc.Operator.KeyHex(), int64(dc.ChainID), client, dc.SpendPermissionManager.Hex(), usdc.Address.Hex())
	if err != nil {
		t.Fatal(err)
	}
	balance := func(a string) *big.Int {
		b, err := tok.BalanceOf(&bind.CallOpts{Context: ctx}, gethcommon.HexToAddress(a))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	custBefore, splitBefore := balance(customer.Address.Hex()), balance(split.Address.Hex())
	price := big.NewInt(9_990_000)
	hashes, err := charger.Charge(ctx, p, hexutil.Encode(sig), split.Address.Hex(), price)
	if err != nil || len(hashes) != 3 {
		t.Fatalf("first charge: %v %v", hashes, err)
	}
	if d := new(big.Int).Sub(custBefore, balance(customer.Address.Hex())); d.Cmp(price) != 0 {
		t.Fatalf("customer paid %s, want %s", d, price)
	}
	if d := new(big.Int).Sub(balance(split.Address.Hex()), splitBefore); d.Cmp(price) != 0 {
		t.Fatalf("split received %s, want %s", d, price)
	}
	// Same period again: the allowance is spent; nothing moves.
	hashes, err = charger.Charge(ctx, p, hexutil.Encode(sig), split.Address.Hex(), price)
	if !errors.Is(err, chain.ErrChargeReverted) || len(hashes) != 0 {
		t.Fatalf("second charge in the period: %v %v, want ErrChargeReverted before anything is sent", hashes, err)
	}
	if d := new(big.Int).Sub(balance(split.Address.Hex()), splitBefore); d.Cmp(price) != 0 {
		t.Fatalf("split received %s after the refused charge, want %s", d, price)
	}
	if !strings.HasPrefix(charger.Operator(), "0x") {
		t.Fatal(charger.Operator())
	}
}
