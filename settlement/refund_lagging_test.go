package settlement_test

import (
	"context"
	"strings"
	"testing"

	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/settlement"
)

// laggingNode is the refund verifier's chain behind a load balancer whose node answering the
// audit lags: it has neither the header of block nor the transactions mined in it, though
// another node gave the head past it.
type laggingNode struct {
	settlement.RefundChain
	block uint64
	hash  string // the refund's transaction, mined in block
}

func (l laggingNode) BlockHashes(ctx context.Context, numbers []uint64) (map[uint64]string, error) {
	out, err := l.RefundChain.BlockHashes(ctx, numbers)
	delete(out, l.block)
	return out, err
}

func (l laggingNode) Transaction(ctx context.Context, hash string) (settlement.RefundTx, bool, error) {
	if strings.EqualFold(hash, l.hash) {
		return settlement.RefundTx{}, false, nil
	}
	return l.RefundChain.Transaction(ctx, hash)
}

// TestRefundAuditOnALaggingNodeTakesNothingBack (stop 66): the audit took a header the node did
// not answer (null, a node behind the head another node gave) for a block that left the chain,
// and the same node not knowing the transaction yet for a reorg that dropped it: the counted
// refund was reverted (refunded -> refund_requested, an error log for the operator), and
// processed again at the next step, which told the merchant receipt.refunded twice for one
// refund. A header not answered audits nothing: the refund stays counted, and a later step with
// the header keeps it (the chain never changed).
func TestRefundAuditOnALaggingNodeTakesNothingBack(t *testing.T) {
	t.Parallel()
	e := newRefundEnv(t)
	r := e.paid(1000)
	id := r.Receipt.ReceiptID
	tx := e.send(e.customer, 10_000_000)
	e.mined(tx)
	hash := strings.ToLower(tx.Hash().Hex())
	if _, err := e.claim(r, "", hash); err != nil {
		t.Fatal(err)
	}
	e.commit()
	if res := e.verify(); res.Processed != 1 {
		t.Fatalf("the refund at depth: %+v", res)
	}
	_, rec := e.refund(id, hash)
	e.commit()

	real := e.verifier.Chain
	e.verifier.Chain = laggingNode{RefundChain: real, block: rec.BlockNumber, hash: hash}
	res := e.verify()
	st, now := e.refund(id, hash)
	if res.Reverted != 0 || st.Status != receipt.StatusRefunded || now.State != receipt.RefundStateProcessed ||
		e.count(id, receipt.EventRefundReverted) != 0 {
		t.Fatalf("a lagging node's audit: %+v %s %+v", res, st.Status, now)
	}
	e.verifier.Chain = real
	e.commit()
	if res := e.verify(); res != (settlement.RefundStepResult{}) {
		t.Fatalf("the next audit: %+v", res)
	}
	if st := e.state(id); st.Status != receipt.StatusRefunded || e.count(id, receipt.EventRefundProcessed) != 1 {
		t.Fatalf("after: %s, %d processed", st.Status, e.count(id, receipt.EventRefundProcessed))
	}
}
