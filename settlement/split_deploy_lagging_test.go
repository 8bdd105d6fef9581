package settlement_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/settlement"
)

var _ settlement.SplitCodeReader = (*chain.Operator)(nil)

// nodeBehind is the operator's chain served by a node that stays behind it: at its first read
// its head is the block before at, and it keeps that many blocks behind the chain after.
type nodeBehind struct {
	*chain.Operator
	at     uint64 // the block it has not reached at its first read
	mu     sync.Mutex
	behind uint64
	set    bool
}

func (n *nodeBehind) Head(ctx context.Context) (uint64, error) {
	h, err := n.Operator.Head(ctx)
	if err != nil {
		return 0, err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.set {
		n.behind, n.set = h-(n.at-1), true
	}
	return h - n.behind, nil
}

func (n *nodeBehind) CodeAtBlock(ctx context.Context, address string, block uint64) (bool, error) {
	h, err := n.Head(ctx)
	if err != nil {
		return false, err
	}
	if block > h {
		return false, fmt.Errorf("header not found")
	}
	return n.Operator.CodeAtBlock(ctx, address, block)
}

func (n *nodeBehind) HasCode(ctx context.Context, address string) (bool, error) {
	h, err := n.Head(ctx)
	if err != nil {
		return false, err
	}
	return n.Operator.CodeAtBlock(ctx, address, h)
}

// TestDeploySplitANodeBehindItsDeploymentDeploysNothing: a configured split is deployed again
// only when its contract is gone from the chain followed (a new development chain). One read at
// the head decided it: a node a block behind the deployment (the merchant's second click right
// after the first, or another node behind the provider's load balancer) said "no code", a second
// contract was deployed (the operator's gas) and the merchant's split moved to it, while
// payments already sent to the first were marked reconciled without being released. Now the
// split must hold no code in two blocks some apart, read at their numbers.
func TestDeploySplitANodeBehindItsDeploymentDeploysNothing(t *testing.T) {
	t.Parallel()
	e := newDistEnv(t)
	merchant, platform := newWallet(t), newWallet(t)
	deploy, _ := e.handlers(platform)
	st := e.deploy(deploy, merchant)
	var hash string
	if err := e.pool.QueryRow(e.ctx, `SELECT tx_hash FROM operator_transactions WHERE kind = 'deploy'`).Scan(&hash); err != nil {
		t.Fatal(err)
	}
	r, err := e.rpc.Backend().TransactionReceipt(e.ctx, common.HexToHash(hash))
	if err != nil {
		t.Fatal(err)
	}
	node := &nodeBehind{Operator: e.op, at: r.BlockNumber.Uint64()}
	behind := settlement.NewDeploySplitHandler(commands.NewConfigureSplitHandler(e.store, platform, time.Now), node,
		settlement.NewOperatorSender(node, e.ledger))
	again := e.deploy(behind, merchant)
	if again.Address != st.Address || len(again.Moved) != 0 {
		t.Fatalf("a node behind the deployment moved the split from %s: %+v", st.Address, again)
	}
	var deployments int
	if err := e.pool.QueryRow(e.ctx, `SELECT count(*) FROM operator_transactions WHERE kind = 'deploy'`).Scan(&deployments); err != nil {
		t.Fatal(err)
	}
	if deployments != 1 {
		t.Fatalf("%d deployments, want 1", deployments)
	}
}

// nodeBehindOnce is the operator's chain behind a provider whose first code read goes to a node
// that has not reached the block another node named as the head.
type nodeBehindOnce struct {
	*chain.Operator
	mu    sync.Mutex
	erred bool
}

func (n *nodeBehindOnce) CodeAtBlock(ctx context.Context, address string, block uint64) (bool, error) {
	n.mu.Lock()
	first := !n.erred
	n.erred = true
	n.mu.Unlock()
	if first {
		return false, fmt.Errorf("header not found")
	}
	return n.Operator.CodeAtBlock(ctx, address, block)
}

// TestDeploySplitReadsTheCodeAgainWhenANodeIsBehindTheHead: a configured merchant's POST reads
// its split's code at the block the node named as its head; a provider's other node, behind that
// block, errs. That read is made again, not answered 503 chain_unavailable.
func TestDeploySplitReadsTheCodeAgainWhenANodeIsBehindTheHead(t *testing.T) {
	t.Parallel()
	e := newDistEnv(t)
	merchant, platform := newWallet(t), newWallet(t)
	deploy, _ := e.handlers(platform)
	st := e.deploy(deploy, merchant)
	node := &nodeBehindOnce{Operator: e.op}
	again := e.deploy(settlement.NewDeploySplitHandler(commands.NewConfigureSplitHandler(e.store, platform, time.Now), node,
		settlement.NewOperatorSender(node, e.ledger)), merchant)
	if again.Address != st.Address || !node.erred {
		t.Fatalf("split %+v, want %s unchanged", again, st.Address)
	}
}
