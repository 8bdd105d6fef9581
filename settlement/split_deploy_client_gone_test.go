package settlement_test

import (
	"context"
	"testing"
	"time"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/settlement"
)

// leavingClient is the operator's chain, with the request's client leaving (its context
// cancelled) as soon as the deployment is sent.
type leavingClient struct {
	*chain.Operator
	leave context.CancelFunc
}

func (c leavingClient) Broadcast(ctx context.Context, raw []byte) error {
	err := c.Operator.Broadcast(context.WithoutCancel(ctx), raw)
	c.leave()
	return err
}

// TestDeploySplitFinishesWhenTheClientLeaves: a deployment, once sent, is mined whatever the
// client does. It was waited for on the request's context: a client that left (a browser tab
// closed, a proxy's timeout) got the split deployed but never configured, and the merchant's next
// POST /api/split/deploy deployed a second contract (the operator paying the gas twice). Now the
// deployment is waited for (at most its 2 minutes) and configured; the next call answers it.
func TestDeploySplitFinishesWhenTheClientLeaves(t *testing.T) {
	t.Parallel()
	e := newDistEnv(t)
	merchant, platform := newWallet(t), newWallet(t)
	ctx, cancel := context.WithCancel(e.ctx)
	defer cancel()
	c := leavingClient{Operator: e.op, leave: cancel}
	sender := settlement.NewOperatorSender(c, e.ledger)
	deploy := settlement.NewDeploySplitHandler(commands.NewConfigureSplitHandler(e.store, platform, time.Now), c, sender)
	res, err := deploy.Handle(ctx, commands.ConfigureMerchantSplit{Merchant: merchant})
	if err != nil || !res.State.Configured {
		t.Fatalf("deploy with the client gone: %+v %v, want the split configured", res, err)
	}
	again := e.deploy(deploy, merchant)
	if again.Address != res.State.Address {
		t.Fatalf("the next call gave %s, want %s", again.Address, res.State.Address)
	}
	var deployments int
	if err := e.pool.QueryRow(e.ctx, `SELECT count(*) FROM operator_transactions WHERE kind = 'deploy'`).Scan(&deployments); err != nil {
		t.Fatal(err)
	}
	if deployments != 1 {
		t.Fatalf("%d deployments, want 1", deployments)
	}
}
