package settlement_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/settlement"
)

// nodeStuck is the operator's chain served by a node whose head stays at block head: it never
// reaches a split deployed after it. read is closed at its first code read.
type nodeStuck struct {
	*chain.Operator
	head uint64
	read chan struct{}
	once sync.Once
}

func (n *nodeStuck) Head(context.Context) (uint64, error) { return n.head, nil }

func (n *nodeStuck) CodeAtBlock(ctx context.Context, address string, block uint64) (bool, error) {
	n.once.Do(func() { close(n.read) })
	return n.Operator.CodeAtBlock(ctx, address, block)
}

// TestDeploySplitWaitingForALaggingNodeHoldsUpNoOtherDeployment: a configured merchant's POST
// waits, on a node behind its split's deployment, until the node reaches it or the handler's 2
// minutes end (splitGone). It waited holding the handler's lock, so every other merchant's first
// deployment waited those 2 minutes too, and a client that left did not end the wait. Now the
// check runs without the lock and on the request's context.
func TestDeploySplitWaitingForALaggingNodeHoldsUpNoOtherDeployment(t *testing.T) {
	t.Parallel()
	e := newDistEnv(t)
	first, other, platform := newWallet(t), newWallet(t), newWallet(t)
	deploy, _ := e.handlers(platform)
	st := e.deploy(deploy, first)
	node := &nodeStuck{Operator: e.op, head: 1, read: make(chan struct{})}
	stuck := settlement.NewDeploySplitHandler(commands.NewConfigureSplitHandler(e.store, platform, time.Now), node,
		settlement.NewOperatorSender(node, e.ledger))
	ctx, leave := context.WithCancel(e.ctx)
	checked := make(chan error, 1)
	go func() {
		_, err := stuck.Handle(ctx, commands.ConfigureMerchantSplit{Merchant: first})
		checked <- err
	}()
	<-node.read // the first merchant's check is waiting for the node
	var deployed atomic.Bool
	go func() {
		if _, err := stuck.Handle(e.ctx, commands.ConfigureMerchantSplit{Merchant: other}); err != nil {
			t.Error(err)
		}
		deployed.Store(true)
	}()
	wait.Until(t, "the other merchant's split deployed while the first's check waits", 60*time.Second, deployed.Load)
	leave()
	if err := <-checked; err == nil || !errors.Is(err, settlement.ErrChainUnavailable) {
		t.Fatalf("the check of %s ended by its client answered %v, want chain_unavailable", st.Address, err)
	}
	again, err := commands.LoadSplit(e.ctx, e.store, first)
	if err != nil || again.Address != st.Address {
		t.Fatalf("split %+v (%v), want %s unchanged", again, err, st.Address)
	}
}
