package settlement_test

import (
	"testing"
	"time"

	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/readmodels"
)

// TestPaymentWindowUnderpaidOnrampSessionEnds: a processor success for less than is due is
// ignored, and the session it ended holds the window open no longer; the window process must find
// the receipt (its due list filtered out every receipt whose current attempt is onramp) and fail
// it, or it stays pending for good with the customer's short payment unanswered.
func TestPaymentWindowUnderpaidOnrampSessionEnds(t *testing.T) {
	t.Parallel()
	e := newWindowEnv(t)
	h := e.handler()
	id := e.receipt()
	e.change(id, func(st receipt.State) ([]receipt.Event, error) {
		return receipt.StartAttempt(st, receipt.AttemptStarted{AttemptID: "att_on", Kind: "onramp", SessionID: "cos_1", OpenedBy: "service", At: e.now().UnixMilli()})
	})
	cents := int64(999)
	e.change(id, func(st receipt.State) ([]receipt.Event, error) {
		return receipt.DecideProcessorUpdate(st, receipt.ProcessorUpdate{SessionID: "cos_1", AttemptID: "att_on", Status: "fulfillment_complete",
			TransactionHash: "0xab", SourceAmountCents: &cents, SourceAmountUSD: "9.99", SessionOwner: id, At: e.now().UnixMilli()})
	})
	if st := e.state(id); st.Status == receipt.StatusPaid || st.OnrampOpen() {
		t.Fatalf("after an underpaid success: status %s, onramp open %v", st.Status, st.OnrampOpen())
	}
	// Nor does the reconciler keep asking the processor about the session it ended.
	if open, err := readmodels.NewReceipts(e.pool).OpenOnrampAttempts(e.ctx, e.now().Add(time.Hour), 10); err != nil || len(open) != 0 {
		t.Fatalf("open onramp attempts after the underpaid success: %v (%v)", open, err)
	}
	e.advance(2 * time.Hour)
	if got, err := h.Handle(e.ctx); err != nil || len(got) != 1 || got[0].ReceiptID != id {
		t.Fatalf("pass after the window ended: %v (%v); want %s expired", got, err, id)
	}
	e.wantExpired(id, "") // the 9.99 is recorded as PaymentIgnored, not received
}
