package contracts_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/rand"
	"errors"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/payledger/payledger/chain/contracts"
)

// callRevert eth_calls data on to from from and returns the revert data, failing if it succeeded.
func (e *depositEnv) callRevert(from, to common.Address, data []byte, what string) []byte {
	e.t.Helper()
	_, err := e.client.CallContract(context.Background(), ethereum.CallMsg{From: from, To: &to, Data: data}, nil)
	if err == nil {
		e.t.Errorf("%s succeeded, want a revert", what)
		return nil
	}
	var de rpc.DataError
	if !errors.As(err, &de) {
		return nil
	}
	s, _ := de.ErrorData().(string)
	out, _ := hexutil.Decode(s)
	return out
}

// wantDepositError checks that the call of data on to by from reverts with the Deposit error name.
func (e *depositEnv) wantDepositError(from, to common.Address, data []byte, name, what string) {
	e.t.Helper()
	if got := errorName(e.t, contracts.DepositMetaData, e.callRevert(from, to, data, what)); got != name {
		e.t.Errorf("%s: reverted with %q, want %s", what, got, name)
	}
}

func randomAddress(t *testing.T) common.Address {
	var a common.Address
	if _, err := rand.Read(a[:]); err != nil {
		t.Fatal(err)
	}
	return a
}

// TestDepositFundsGoOnlyToTheirSplit tries every external function of the factory and of a
// deployed deposit, from a stranger, the payer and the deployer of everything, with other splits,
// other receipts, the zero address and random arguments: nothing but the split ever receives
// the deposit's funds.
func TestDepositFundsGoOnlyToTheirSplit(t *testing.T) {
	e := newDepositEnv(t)
	key := receiptKey("rcpt_guarded")
	keys := []contracts.DepositFactoryDepositKey{{ReceiptId: key, Split: e.split}}
	d := e.depositOf(key, e.split)
	e.sweep(e.stranger, keys) // deployed, empty
	e.mined(e.usdc.Transfer(e.opts(e.payer), d, big.NewInt(5_000_000)))
	e.payETH(e.payer, d, eth(1))
	impl, err := e.factory.Implementation(nil)
	if err != nil {
		t.Fatal(err)
	}
	thief := randomAddress(t) // holds nothing: any token or wei it gains came from the deposit
	dm := contracts.DepositMetaData

	for _, k := range []*ecdsa.PrivateKey{e.stranger, e.payer, e.operator} {
		from := addr(k)
		for _, to := range []common.Address{thief, from, e.factoryAddr, d, impl} {
			e.wantDepositError(from, d, pack(t, dm, "flushToken", key, to, e.usdcAddr), "NotThisDeposit", "flushToken to another split")
			e.wantDepositError(from, d, pack(t, dm, "flushETH", key, to), "NotThisDeposit", "flushETH to another split")
			e.wantDepositError(from, d, pack(t, dm, "flushToken", receiptKey("rcpt_other"), to, e.usdcAddr), "NotThisDeposit", "flushToken of another receipt")
			e.wantDepositError(from, impl, pack(t, dm, "flushToken", key, to, e.usdcAddr), "NotThisDeposit", "the implementation's flushToken")
		}
		e.wantDepositError(from, d, pack(t, dm, "flushToken", key, common.Address{}, e.usdcAddr), "ZeroSplit", "flushToken to the zero address")
		e.wantDepositError(from, d, pack(t, dm, "flushETH", key, common.Address{}), "ZeroSplit", "flushETH to the zero address")
		e.wantDepositError(from, impl, pack(t, dm, "flushETH", key, e.split), "NotThisDeposit", "the implementation's flushETH")
		// Right pair, "tokens" that are not ERC-20s: no balance can be read, nothing moves.
		for _, notToken := range []common.Address{{}, thief, d, e.factoryAddr, impl, e.split} {
			e.wantDepositError(from, d, pack(t, dm, "flushToken", key, e.split, notToken), "TokenCallFailed", "flushToken of "+notToken.Hex())
		}
		// A sweep naming another split addresses another (empty) deposit; a zero split is refused.
		e.sweep(k, []contracts.DepositFactoryDepositKey{{ReceiptId: key, Split: thief}, {ReceiptId: key, Split: from}}, e.usdcAddr)
		if errorName(t, contracts.DepositFactoryMetaData, e.callRevert(from, e.factoryAddr,
			pack(t, contracts.DepositFactoryMetaData, "sweep", []contracts.DepositFactoryDepositKey{{ReceiptId: key}}, []common.Address{e.usdcAddr}),
			"sweep of a zero split")) != "ZeroSplit" {
			t.Error("sweep of a zero split: not ZeroSplit")
		}
		// Unknown selectors and stray data: the deposit has only receive(), the factory no fallback.
		for _, data := range [][]byte{{0xde, 0xad, 0xbe, 0xef}, pack(t, contracts.TestTokenMetaData, "transfer", thief, big.NewInt(1)), make([]byte, 100)} {
			e.callRevert(from, d, data, "a call of unknown data on the deposit")
			e.callRevert(from, e.factoryAddr, data, "a call of unknown data on the factory")
		}
	}
	// Random (receipt, split) pairs never match the deposit.
	for i := 0; i < 50; i++ {
		var rk [32]byte
		if _, err := rand.Read(rk[:]); err != nil {
			t.Fatal(err)
		}
		to := randomAddress(t)
		e.wantDepositError(addr(e.stranger), d, pack(t, dm, "flushToken", rk, to, e.usdcAddr), "NotThisDeposit", "flushToken with random arguments")
		e.wantDepositError(addr(e.stranger), d, pack(t, dm, "flushToken", key, to, e.usdcAddr), "NotThisDeposit", "flushToken to a random split")
	}
	wantBig(t, "deposit USDC after the attempts", tokenBalance(t, e.usdc, d), big.NewInt(5_000_000))
	wantBig(t, "deposit ETH after the attempts", e.ethBalance(d), eth(1))

	// The deployer of everything, sweeping correctly, can only pay the split.
	e.sweep(e.operator, keys, e.usdcAddr)
	wantBig(t, "split USDC", tokenBalance(t, e.usdc, e.split), big.NewInt(5_000_000))
	wantBig(t, "thief USDC", tokenBalance(t, e.usdc, thief), big.NewInt(0))
	wantBig(t, "thief ETH", e.ethBalance(thief), big.NewInt(0))
	for _, k := range []*ecdsa.PrivateKey{e.stranger, e.operator} {
		wantBig(t, "caller USDC", tokenBalance(t, e.usdc, addr(k)), big.NewInt(0))
	}
	wantBig(t, "deposit ETH", e.ethBalance(d), big.NewInt(0))
}
