package settlement_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/settlement"
)

// TestDeploySplitANodeFarBehindItsDeploymentDeploysNothing: stop 67's rule (no code in a block 4
// past the node's head) still took a node 4 or more blocks behind the deployment at its word: it
// read "no code" in both blocks, a second contract was deployed (the operator's gas) and the
// merchant's split moved, while payments already sent to the first were marked reconciled
// without being released. Now the later block must also be stamped after the split's recording
// (the head's time when its code was read, CodeSince): a node this far behind has no such block
// until it reaches the deployment.
func TestDeploySplitANodeFarBehindItsDeploymentDeploysNothing(t *testing.T) {
	t.Parallel()
	e := newDistEnv(t)
	const far = 2 * 4 // blocks behind the deployment: twice redeployBlocks
	wait.Until(t, "the chain past block "+fmt.Sprint(far+1), 30*time.Second, func() bool {
		head, err := e.op.Head(e.ctx)
		return err == nil && head > far
	})
	merchant, platform := newWallet(t), newWallet(t)
	// The service's clock agrees with the chain's, as with a real chain (this one seals every
	// 300 ms, each block a second past the last: it runs ahead of the wall clock).
	chainClock := func() time.Time {
		h, err := e.rpc.Backend().HeaderByNumber(e.ctx, nil)
		if err != nil {
			t.Error(err)
			return time.Now()
		}
		return time.Unix(int64(h.Time)+1, 0)
	}
	deploy := settlement.NewDeploySplitHandler(commands.NewConfigureSplitHandler(e.store, platform, chainClock), e.op,
		settlement.NewOperatorSender(e.op, e.ledger))
	st := e.deploy(deploy, merchant)
	if st.CodeSince == 0 {
		t.Fatalf("the deployed split recorded no time its code was read: %+v", st)
	}
	var hash string
	if err := e.pool.QueryRow(e.ctx, `SELECT tx_hash FROM operator_transactions WHERE kind = 'deploy'`).Scan(&hash); err != nil {
		t.Fatal(err)
	}
	r, err := e.rpc.Backend().TransactionReceipt(e.ctx, common.HexToHash(hash))
	if err != nil {
		t.Fatal(err)
	}
	if r.BlockNumber.Uint64() <= far {
		t.Fatalf("the deployment is in block %d, too early to be %d behind", r.BlockNumber, far)
	}
	node := &nodeBehind{Operator: e.op, at: r.BlockNumber.Uint64() - far}
	behind := settlement.NewDeploySplitHandler(commands.NewConfigureSplitHandler(e.store, platform, time.Now), node,
		settlement.NewOperatorSender(node, e.ledger))
	again := e.deploy(behind, merchant)
	if again.Address != st.Address || len(again.Moved) != 0 {
		t.Fatalf("a node %d blocks behind the deployment moved the split from %s: %+v", far, st.Address, again)
	}
	var deployments int
	if err := e.pool.QueryRow(e.ctx, `SELECT count(*) FROM operator_transactions WHERE kind = 'deploy'`).Scan(&deployments); err != nil {
		t.Fatal(err)
	}
	if deployments != 1 {
		t.Fatalf("%d deployments, want 1", deployments)
	}
}
