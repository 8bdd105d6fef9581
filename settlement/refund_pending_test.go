package settlement_test

import (
	"strings"
	"testing"
	"time"

	"github.com/payledger/payledger/domain/receipt"
)

// TestRefundWaitingInTheMempoolIsNotRefused (stop 66): a claim whose transaction the chain did
// not show an hour after the claim was refused, also while the node held it waiting to be mined
// (a low fee in a busy hour, or behind an earlier transaction of the merchant's wallet). The
// transaction was mined later: the customer had the money, the receipt said the refund was
// refused ("not on the chain"), receipt.refund_failed told the merchant so, and the page offered
// "Refund with wallet" again, which sends the money a second time. A claim whose transaction is
// pending now waits, and is processed once mined at depth; one still pending a day after its
// claim is refused.
func TestRefundWaitingInTheMempoolIsNotRefused(t *testing.T) {
	t.Parallel()
	e := newRefundEnv(t)
	r, old := e.paid(1000), e.paid(500)
	id := r.Receipt.ReceiptID
	stuck := e.send(e.customer, 5_000_000) // sent, not mined: pending past the day
	stuckHash := strings.ToLower(stuck.Hash().Hex())
	if _, err := e.claim(old, "", stuckHash); err != nil {
		t.Fatal(err)
	}
	e.clock.advance(23 * time.Hour)
	tx := e.send(e.customer, 10_000_000) // sent, not mined
	hash := strings.ToLower(tx.Hash().Hex())
	if _, err := e.claim(r, "", hash); err != nil {
		t.Fatal(err)
	}
	e.clock.advance(2 * time.Hour)
	res := e.verify()
	if st, rec := e.refund(id, hash); res.Refused != 1 || st.Status != receipt.StatusRefundRequested || rec.State != receipt.RefundStateClaimed {
		t.Fatalf("pending two hours after the claim: %+v %s %+v", res, st.Status, rec)
	}
	if _, rec := e.refund(old.Receipt.ReceiptID, stuckHash); rec.State != receipt.RefundStateRefused || !strings.Contains(rec.RefusedReason, "still waiting to be mined") {
		t.Fatalf("pending past the day: %+v", rec)
	}
	e.mined(tx)
	e.commit()
	e.verify()
	if st, rec := e.refund(id, hash); st.Status != receipt.StatusRefunded || rec.State != receipt.RefundStateProcessed {
		t.Fatalf("mined: %s %+v", st.Status, rec)
	}
}
