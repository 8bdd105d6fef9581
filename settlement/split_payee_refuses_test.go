package settlement_test

import (
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/internal/wait"
)

// A payee whose release reverts (here a contract without receive(), paid in ETH; on a real chain
// also a USDC-blocklisted payee) must not hold up the split's other payees: before, the first
// payee's failing release ended the group's turn, so every payee after it in the split's order
// (the platform after the merchant in the default split) was never released by the service,
// for any receipt of that split and token. Now each payee has its turn; the receipt stays paid
// (one payee is not paid) and every pass returns the failing release's error.
func TestDistributeSplitPastAPayeeWhoseReleaseReverts(t *testing.T) {
	t.Parallel()
	e := newDistEnv(t)
	merchant, platform := newWallet(t), newWallet(t)
	usdc, _ := e.dev.Token("USDC")
	refuses := strings.ToLower(usdc.Address.Hex()) // a token contract: it has no receive(), ETH sent to it reverts
	deploy, sender := e.handlers(platform)
	rs := []commands.SplitRecipient{{Address: refuses, SharesBps: 5_000}, {Address: merchant, SharesBps: 5_000}}
	res, err := deploy.Handle(e.ctx, commands.ConfigureMerchantSplit{Merchant: merchant, Recipients: &rs})
	if err != nil {
		t.Fatal(err)
	}
	opts, err := bind.NewKeyedTransactorWithChainID(e.dev.Accounts[1].Key, big.NewInt(chain.DevChainID))
	if err != nil {
		t.Fatal(err)
	}
	opts.Context, opts.Value = e.ctx, big.NewInt(2_000_000_000_000_000)
	tx, err := chain.SendETH(opts, e.rpc.Backend(), common.HexToAddress(res.State.Address))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bind.WaitMined(e.ctx, e.rpc.Backend(), tx); err != nil {
		t.Fatal(err)
	}
	id := e.paidReceiptIn(merchant, 1000, "ETH")
	h := e.distributor(sender)
	var passErr error
	wait.Until(t, "the merchant's half released", 30*time.Second, func() bool {
		_, passErr = h.Handle(e.ctx)
		b, err := e.rpc.Backend().BalanceAt(e.ctx, common.HexToAddress(merchant), nil)
		if err != nil {
			t.Fatal(err)
		}
		return b.String() == "1000000000000000"
	})
	if passErr == nil || !strings.Contains(passErr.Error(), refuses) {
		t.Fatalf("pass error %v, want the failing release to %s", passErr, refuses)
	}
	if s := e.state(id); s.Status != receipt.StatusPaid {
		t.Fatalf("receipt %s, want paid: one payee is not paid", s.Status)
	}
}
