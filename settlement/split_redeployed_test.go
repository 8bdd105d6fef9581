package settlement_test

import (
	"testing"
	"time"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
)

// A deposit is bound to the split of its receipt's creation: its sweep moves the funds there.
// After the merchant's split is deployed again (SplitRedeployed: the old one holds no code on the
// chain followed), a receipt swept to the old address must not be reconciled by releases on the
// new split: those pay out other receipts' funds, and its own are not in it. It stays paid (an
// error is logged); the receipts swept to the new split are distributed as before.
func TestDistributeSplitDepositSweptToTheSplitBeforeItsRedeployment(t *testing.T) {
	t.Parallel()
	e := newSweepEnv(t)
	merchant, platform, gone := newWallet(t), newWallet(t), newWallet(t) // gone: no code on this chain
	if _, err := commands.NewConfigureSplitHandler(e.store, platform, time.Now).Handle(e.ctx,
		commands.ConfigureMerchantSplit{Merchant: merchant, Address: gone}); err != nil {
		t.Fatal(err)
	}
	old, oldDeposit := e.depositReceipt(merchant, gone, 1000)
	e.payDeposit(old, oldDeposit, "USDC", 10_000_000)
	e.sweepAll(e.sweeperOf(e.sweeper), old)

	deploy, sender := e.handlers(platform)
	st := e.deploy(deploy, merchant) // deployed again: SplitRedeployed
	if st.Address == gone || len(st.Recipients) != 2 {
		t.Fatalf("split after the redeployment %+v", st)
	}
	fresh, freshDeposit := e.depositReceipt(merchant, st.Address, 1000)
	e.payDeposit(fresh, freshDeposit, "USDC", 10_000_000)
	e.sweepAll(e.sweeperOf(e.sweeper), fresh)
	e.listedPaid(old)
	e.listedPaid(fresh)

	dist := e.distributor(sender)
	e.until(dist, fresh)
	if _, err := dist.Handle(e.ctx); err != nil {
		t.Fatal(err)
	}
	if s := e.state(old).Status; s != receipt.StatusPaid {
		t.Fatalf("the receipt swept to %s (no code) is %s, by releases on %s: %+v", gone, s, st.Address, e.distributed(old))
	}
	if got := e.usdcBalance(merchant); got.Int64() != 9_950_000 {
		t.Fatalf("merchant has %s, want 9950000 (the fresh receipt's share)", got)
	}
}
