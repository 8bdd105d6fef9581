package settlement_test

import (
	"context"
	"strings"
	"testing"

	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/settlement"
)

// forkedLogs answers the look-back's eth_getLogs as a node on another branch would (a load
// balancer's lagging node): the transfers found carry another block hash, while it forks.
type forkedLogs struct {
	settlement.DepositChain
	forks bool
}

func (c *forkedLogs) TransfersTo(ctx context.Context, from, to uint64, addresses []string) ([]settlement.DepositTransfer, error) {
	found, err := c.DepositChain.TransfersTo(ctx, from, to, addresses)
	if c.forks {
		for i := range found {
			found[i].BlockHash = "0x" + strings.Repeat("ee", 32)
		}
	}
	return found, err
}

// Stop 62: the look-back for a deposit watched late took the logs of its eth_getLogs as they
// came, and credited them confirmed at their depth: a log of a block on another branch (a node
// behind a load balancer on another fork) paid the receipt with a block that is not the chain's.
// Its transfers are now checked against the chain's blocks at their numbers; one of another
// block fails the look-back (StepResult.LookBack) and is looked for again at the next step.
func TestDepositLookBackOfAnotherBranchIsNotCredited(t *testing.T) {
	t.Parallel()
	e := newDepositEnv(t)
	forked := &forkedLogs{DepositChain: e.detector().Chain}
	d := e.detector()
	d.Chain = forked
	e.step(d)
	id := e.paidBeforeItsRow(d, 0)
	forked.forks = true
	e.commit()
	if res := e.step(d); res.LookBack == nil {
		t.Fatal("a look-back that found a transfer of another branch did not fail")
	}
	e.want(id, receipt.StatusGenerated, "")
	forked.forks = false
	e.commit()
	e.step(d)
	e.commit()
	e.step(d)
	st := e.want(id, receipt.StatusPaid, "1.50")
	if n, _ := e.sim.BlockNumber(e.ctx); st.Credits[0].BlockNumber > n {
		t.Fatalf("credit %+v", st.Credits[0])
	}
}
