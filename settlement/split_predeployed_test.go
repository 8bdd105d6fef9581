package settlement_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/settlement"
)

// A pre-deployed split records what the contract pays (its payees and shares, in basis points),
// not the default 9,950/50 nor the body's: the distributor releases to the recorded payees, so
// the contract's other payee is paid and the receipt is reconciled only then. Before, the
// default was recorded: the other payee (never released) and the platform (not a payee, nothing
// releasable) counted as covered, and the receipt was reconciled with 5 USDC left in the split.
func TestPreDeployedSplitPaysTheContractsPayees(t *testing.T) {
	t.Parallel()
	e := newDistEnv(t)
	merchant, other, platform := newWallet(t), newWallet(t), newWallet(t)
	deploy, sender := e.handlers(platform)
	addr := e.deploySplitDirectly([]string{merchant, other}, []int64{5000, 5000})
	res, err := deploy.Handle(e.ctx, commands.ConfigureMerchantSplit{Merchant: merchant, Address: addr})
	if err != nil {
		t.Fatal(err)
	}
	want := []commands.SplitRecipient{{Address: merchant, SharesBps: 5000}, {Address: other, SharesBps: 5000}}
	if got := res.State.Recipients; len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("recorded recipients %+v, want the contract's %+v", got, want)
	}

	e.pay(addr, 10_000_000)
	id := e.paidReceipt(merchant, 1000)
	e.until(e.distributor(sender), id)
	for _, w := range []string{merchant, other} {
		if got := e.usdcBalance(w); got.Int64() != 5_000_000 {
			t.Fatalf("%s has %s, want 5000000", w, got)
		}
	}
	d := e.distributed(id)
	if len(d) != 1 || len(d[0].Amounts) != 2 {
		t.Fatalf("SplitDistributed %+v", d)
	}
	for i, am := range d[0].Amounts {
		if am.Recipient != want[i].Address || am.Amount != "5000000" || am.TransactionHash == "" {
			t.Fatalf("amounts %+v, want 5000000 released to each of %+v", d[0].Amounts, want)
		}
	}
}

// Recipients given with a pre-deployed split must be what the contract pays (in any order and
// case); others are refused (400), nothing is configured, and a zero-address recipient is never
// recorded.
func TestPreDeployedSplitRefusesOtherRecipients(t *testing.T) {
	t.Parallel()
	e := newDistEnv(t)
	merchant, other, platform := newWallet(t), newWallet(t), newWallet(t)
	deploy, _ := e.handlers(platform)
	addr := e.deploySplitDirectly([]string{merchant, other}, []int64{5000, 5000})
	for name, rs := range map[string][]commands.SplitRecipient{
		"the default":       {{Address: merchant, SharesBps: 9950}, {Address: platform, SharesBps: 50}},
		"other shares":      {{Address: merchant, SharesBps: 6000}, {Address: other, SharesBps: 4000}},
		"a payee left out":  {{Address: merchant, SharesBps: 10000}},
		"the zero address":  {{Address: merchant, SharesBps: 5000}, {Address: "0x" + strings.Repeat("0", 40), SharesBps: 5000}},
		"an extra nobody":   {{Address: merchant, SharesBps: 5000}, {Address: other, SharesBps: 4000}, {Address: platform, SharesBps: 1000}},
		"the same, repeats": {{Address: merchant, SharesBps: 5000}, {Address: merchant, SharesBps: 5000}},
	} {
		_, err := deploy.Handle(e.ctx, commands.ConfigureMerchantSplit{Merchant: merchant, Address: addr, Recipients: &rs})
		wantRefusal(t, err, "invalid_input", "recipients differ from what splitAddress "+addr+" pays")
		if st, _ := commands.LoadSplit(e.ctx, e.store, merchant); st.Configured {
			t.Fatalf("%s: configured %+v", name, st)
		}
	}
	same := []commands.SplitRecipient{{Address: "0x" + strings.ToUpper(other[2:]), SharesBps: 5000}, {Address: merchant, SharesBps: 5000}}
	res, err := deploy.Handle(e.ctx, commands.ConfigureMerchantSplit{Merchant: merchant, Address: addr, Recipients: &same})
	if err != nil || len(res.State.Recipients) != 2 || res.State.Recipients[0].Address != merchant || res.State.Recipients[1].Address != other {
		t.Fatalf("the contract's recipients, reordered: %+v %v", res, err)
	}
}

// A zero-address recipient is refused before anything is deployed: 400 invalid_input, not the
// 503 "try again" of the constructor's revert, and no deployment is recorded.
func TestDeploySplitRefusesTheZeroAddress(t *testing.T) {
	t.Parallel()
	e := newDistEnv(t)
	merchant, platform := newWallet(t), newWallet(t)
	deploy, _ := e.handlers(platform)
	rs := []commands.SplitRecipient{{Address: merchant, SharesBps: 9950}, {Address: "0x" + strings.Repeat("0", 40), SharesBps: 50}}
	_, err := deploy.Handle(e.ctx, commands.ConfigureMerchantSplit{Merchant: merchant, Recipients: &rs})
	wantRefusal(t, err, "invalid_input", "invalid split: recipients[1].address is the zero address")
	if n := len(e.gasUsed(settlement.TxDeploy)); n != 0 {
		t.Fatalf("%d deployments mined", n)
	}
}

// zeroPayee deploys with its first payee replaced by the zero address: a split the rules let
// through and the contract's constructor refuses (the node's gas estimate reverts).
type zeroPayee struct{ *chain.Operator }

func (z zeroPayee) SignDeploy(ctx context.Context, nonce uint64, payees []string, sharesBps []int) (settlement.SignedTx, error) {
	payees = append([]string{"0x" + strings.Repeat("0", 40)}, payees[1:]...)
	return z.Operator.SignDeploy(ctx, nonce, payees, sharesBps)
}

// A deployment whose gas estimate reverts is the split's refusal (400 invalid_input): trying
// again would revert again. Only a chain that does not answer is 503.
func TestDeploySplitRevertIsInvalid(t *testing.T) {
	t.Parallel()
	e := newDistEnv(t)
	merchant, platform := newWallet(t), newWallet(t)
	op := zeroPayee{e.op}
	deploy := settlement.NewDeploySplitHandler(commands.NewConfigureSplitHandler(e.store, platform, time.Now), op, settlement.NewOperatorSender(op, e.ledger))
	_, err := deploy.Handle(e.ctx, commands.ConfigureMerchantSplit{Merchant: merchant})
	wantRefusal(t, err, "invalid_input", "the split contract refuses these recipients and shares")
	if st, _ := commands.LoadSplit(e.ctx, e.store, merchant); st.Configured {
		t.Fatalf("configured %+v", st)
	}
	// The same split through a working deployment: configured (the refusal held nothing back).
	if st := e.deploy(settlement.NewDeploySplitHandler(commands.NewConfigureSplitHandler(e.store, platform, time.Now), e.op,
		settlement.NewOperatorSender(e.op, e.ledger)), merchant); !st.Configured || st.Recipients[1].Address != platform {
		t.Fatalf("split after the refusal %+v", st)
	}
}

var _ settlement.SplitChain = (*chain.Operator)(nil)
