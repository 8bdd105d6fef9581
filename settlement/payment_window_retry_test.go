package settlement_test

import (
	"slices"
	"testing"
	"time"

	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/settlement"
	"github.com/payledger/payledger/settlement/pgstore"
)

// TestPaymentWindowHoldsACardRetriedAfterADecline: a customer's first card session is declined
// (the receipt fails by that attempt) and a second one is open when the window ends: the window
// leaves the receipt to the processor, its due list does not offer it again and again, and the
// second session's success pays it. Before, the window expired it under the session and the
// success was recorded as ignored: the customer charged, the receipt failed.
func TestPaymentWindowHoldsACardRetriedAfterADecline(t *testing.T) {
	t.Parallel()
	e := newWindowEnv(t)
	h := e.handler()
	id, plain := e.receipt(), e.receipt()
	e.change(id, func(st receipt.State) ([]receipt.Event, error) {
		return receipt.StartAttempt(st, receipt.AttemptStarted{AttemptID: "att_1", Kind: "onramp", SessionID: "cos_1", OpenedBy: "service", At: e.now().UnixMilli()})
	})
	e.change(id, func(st receipt.State) ([]receipt.Event, error) {
		return receipt.DecideProcessorUpdate(st, receipt.ProcessorUpdate{SessionID: "cos_1", AttemptID: "att_1", Status: "rejected", At: e.now().UnixMilli()})
	})
	e.change(id, func(st receipt.State) ([]receipt.Event, error) {
		return receipt.StartAttempt(st, receipt.AttemptStarted{AttemptID: "att_2", Kind: "onramp", SessionID: "cos_2", OpenedBy: "service", At: e.now().UnixMilli()})
	})
	if st := e.state(id); st.Status != receipt.StatusFailed || !st.OnrampOpen() {
		t.Fatalf("retried after a decline: status %s, onramp open %v", st.Status, st.OnrampOpen())
	}
	e.advance(2 * time.Hour)
	page, err := pgstore.NewReceipts(e.pool).DueWindows(e.ctx, e.now(), settlement.WindowCursor{}, 10)
	var due []string
	for _, d := range page {
		due = append(due, d.ReceiptID)
	}
	if err != nil || slices.Contains(due, id) || !slices.Contains(due, plain) {
		t.Fatalf("due after the window: %v (%v); want %s and not %s", due, err, plain, id)
	}
	if got, err := h.Handle(e.ctx); err != nil || len(got) != 1 || got[0].ReceiptID != plain {
		t.Fatalf("pass after the window ended: %v (%v); want only %s expired", got, err, plain)
	}
	cents := int64(1000)
	e.change(id, func(st receipt.State) ([]receipt.Event, error) {
		return receipt.DecideProcessorUpdate(st, receipt.ProcessorUpdate{SessionID: "cos_2", AttemptID: "att_2", Status: "fulfillment_complete",
			TransactionHash: "0xab", SourceAmountCents: &cents, SourceAmountUSD: "10.00", SessionOwner: id, At: e.now().UnixMilli()})
	})
	if st := e.state(id); st.Status != receipt.StatusPaid {
		t.Fatalf("the retried session's success: %s", st.Status)
	}
}
