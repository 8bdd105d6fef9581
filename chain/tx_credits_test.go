package chain_test

import (
	"context"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/domain/onchain"
)

// TestTransactionCredits: what a submitted hash's check sees of a transaction: nothing while it
// is not mined; a configured token's transfers with their recipient, log index and amount; the
// ETH value of a plain transfer; a revert; a token the chain does not configure, nothing.
func TestTransactionCredits(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	credits := chain.NewTransactionCredits(e.rpc, []chain.Token{{Symbol: "USDC", Address: e.usdc, Decimals: 6}})
	deposit := addr(key(t))

	usdc := e.payToken(e.usdc, e.buyer, deposit, 1_250_000)
	if got, err := credits.Transaction(ctx, usdc.Hash().Hex()); err != nil || got.Mined {
		t.Fatalf("not mined yet: %+v, %v", got, err)
	}
	usdt := e.payToken(e.usdt, e.buyer, deposit, 5) // not configured here
	wei := eth(3)
	ethTx := e.payETH(e.stranger, deposit, wei)
	o := e.opts(e.buyer)
	o.GasLimit = 200_000 // more than the buyer holds: mined, it reverts
	reverted := e.sent(e.token(e.usdc).Transfer(o, deposit, new(big.Int).Mul(big.NewInt(1e12), big.NewInt(1e6))))
	e.commit()

	to := strings.ToLower(deposit.Hex())
	got, err := credits.Transaction(ctx, usdc.Hash().Hex())
	if err != nil || !got.Mined || got.Reverted || len(got.Credits) != 1 || got.BlockNumber == 0 {
		t.Fatalf("USDC transfer: %+v, %v", got, err)
	}
	if c := got.Credits[0]; c.To != to || c.Token != "USDC" || c.AmountUnits != "1250000" || c.LogIndex < 0 || c.From != strings.ToLower(addr(e.buyer).Hex()) {
		t.Fatalf("USDC credit %+v", c)
	}
	if got, err := credits.Transaction(ctx, usdt.Hash().Hex()); err != nil || !got.Mined || len(got.Credits) != 0 {
		t.Fatalf("a token the chain does not configure: %+v, %v", got, err)
	}
	want := onchain.ChainCredit{To: to, Token: "ETH", LogIndex: -1, AmountUnits: wei.String(), From: strings.ToLower(addr(e.stranger).Hex())}
	if got, err := credits.Transaction(ctx, ethTx.Hash().Hex()); err != nil || len(got.Credits) != 1 || got.Credits[0] != want {
		t.Fatalf("ETH transfer: %+v, %v", got, err)
	}
	r, err := e.sim.TransactionReceipt(ctx, reverted.Hash())
	if err != nil || r.Status != types.ReceiptStatusFailed {
		t.Fatalf("the transfer did not revert: %+v, %v", r, err)
	}
	if got, err := credits.Transaction(ctx, reverted.Hash().Hex()); err != nil || !got.Mined || !got.Reverted || len(got.Credits) != 0 {
		t.Fatalf("reverted: %+v, %v", got, err)
	}
}
