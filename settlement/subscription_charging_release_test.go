package settlement_test

import (
	"context"
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/settlement"
	"github.com/payledger/payledger/settlement/pgstore"
)

// refusingRelease is the charging chain with the node refusing every release of one split (as it
// refuses one that burns gas past the ceiling or reverts: a merchant's own pre-deployed split, a
// payee the token blocklists).
type refusingRelease struct {
	settlement.ChargeChain
	split string
}

func (c refusingRelease) SignRelease(ctx context.Context, nonce uint64, split, token, payee string) (settlement.SignedTx, error) {
	if strings.EqualFold(split, c.split) {
		return settlement.SignedTx{}, errors.New("execution reverted")
	}
	return c.ChargeChain.SignRelease(ctx, nonce, split, token, payee)
}

// TestChargeReleasesPastASplitWhoseReleaseFails: after a run's charges, the splits that received
// them are released to their payees. One split whose release the node refused ended the release
// of every split, every run: the other merchants' charges stayed in their splits (and were never
// marked distributed), and the releases signed before it were recorded but not sent. Now that
// split's charges alone stay undistributed.
func TestChargeReleasesPastASplitWhoseReleaseFails(t *testing.T) {
	t.Parallel()
	e := newChargeEnv(t, 2)
	other := newWallet(t) // a second merchant, its split refused by the node
	splitOp, err := chain.NewOperator(e.dev.Operator.KeyHex(), chain.DevChainID, e.rpc.Backend(), e.dev.Tokens)
	if err != nil {
		t.Fatal(err)
	}
	deploy := settlement.NewDeploySplitHandler(commands.NewConfigureSplitHandler(e.store, e.platform, time.Now), splitOp,
		settlement.NewOperatorSender(splitOp, pgstore.NewOperatorTransactions(e.pool)))
	res, err := deploy.Handle(e.ctx, commands.ConfigureMerchantSplit{Merchant: other})
	if err != nil {
		t.Fatal(err)
	}
	e.plans["plan_other"] = commands.SubscriptionPlan{ID: "plan_other", Merchant: other, Name: "Other", Price: 500, Period: "MONTHLY", Active: true}
	mine := e.subscribe(e.dev.Accounts[0], "plan_monthly")
	theirs := e.subscribe(e.dev.Accounts[1], "plan_other")
	e.listed(mine, theirs)
	before := e.balance(e.merchant)
	run, err := e.handler(refusingRelease{e.op, res.State.Address}).ChargeDue(e.ctx, eventstore.Metadata{})
	if err != nil || run.Succeeded != 2 {
		t.Fatalf("run: %+v %v, want both charged", run, err)
	}
	if got, want := diff(e.balance(e.merchant), before), big.NewInt(9_990_000*9950/10000); got.Cmp(want) != 0 {
		t.Fatalf("the merchant received %s, want its share %s: a refused release of %s held its split's release back", got, want, res.State.Address)
	}
	distributed := `SELECT count(*) FROM subscription_charges WHERE subscription_id = $1 AND distributed_at IS NOT NULL`
	if e.count(distributed, mine) != 1 || e.count(distributed, theirs) != 0 {
		t.Fatalf("distributed: %s %d (want 1), %s %d (want 0)", mine, e.count(distributed, mine), theirs, e.count(distributed, theirs))
	}
}
