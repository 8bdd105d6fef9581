package chain_test

import (
	"context"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum"
	gethcommon "github.com/ethereum/go-ethereum/common"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/domain/onchain"
)

// TestChargeOperatorEstimateGas: the charge transactions' limits come from eth_estimateGas in one
// batch, with the 20% margin; a call that would revert has the node's reason and no limit.
func TestChargeOperatorEstimateGas(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dev, err := chain.StartDevChain(ctx, chain.DevChainOptions{Accounts: 1})
	if err != nil {
		t.Fatal(err)
	}
	rpc, err := chain.Dial(ctx, dev.URL, chain.DevChainID)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rpc.Close(); _ = dev.Close() })
	op, err := dev.ChargeOperator(rpc)
	if err != nil {
		t.Fatal(err)
	}
	to := dev.Accounts[0].Address.Hex()
	ok, err := op.TransferCall(to, big.NewInt(0))
	if err != nil {
		t.Fatal(err)
	}
	tooMuch, err := op.TransferCall(to, new(big.Int).Lsh(big.NewInt(1), 200)) // more than the operator holds
	if err != nil {
		t.Fatal(err)
	}
	est, err := op.EstimateGas(ctx, []onchain.TxCall{ok, tooMuch})
	if err != nil {
		t.Fatal(err)
	}
	target := gethcommon.HexToAddress(ok.To)
	raw, err := rpc.Backend().EstimateGas(ctx, ethereum.CallMsg{From: gethcommon.HexToAddress(op.Sender()), To: &target, Data: ok.Data})
	if err != nil {
		t.Fatal(err)
	}
	if est[0].Revert != "" || est[0].Gas != raw+raw*chain.GasMarginPercent/100 {
		t.Fatalf("transfer estimate %+v, node %d", est[0], raw)
	}
	if est[1].Gas != 0 || !strings.Contains(est[1].Revert, "revert") {
		t.Fatalf("reverting transfer estimate %+v", est[1])
	}
	// Signed with the estimate.
	ok.Gas = est[0].Gas
	s, err := op.SignCall(ctx, 0, ok)
	if err != nil || s.Gas != est[0].Gas {
		t.Fatalf("signed %+v %v", s, err)
	}
	ok.Gas = 0
	if _, err := op.SignCall(ctx, 0, ok); err == nil {
		t.Fatal("signed without a gas limit")
	}
}
