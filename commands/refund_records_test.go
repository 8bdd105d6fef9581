package commands_test

import (
	"fmt"
	"testing"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
)

// Stop 67: past receipt.MaxRefundRecords refunds with a transaction hash, a receipt's next one is
// refused 403 forbidden (a lifetime bound), before its hash is held; a request without a hash
// still goes through.
func TestRefundRecordsBoundedPerReceipt(t *testing.T) {
	t.Parallel()
	e := newPayEnv(t)
	held := &heldHashes{}
	h := commands.NewRefundHandler(e.store, held, e.now)
	id := e.receipt(payMerchant, "USD", 10000)
	e.paid(id)
	hash := func(i int) string { return fmt.Sprintf("0x%064x", i) }
	for i := range receipt.MaxRefundRecords {
		if _, err := h.Handle(e.ctx, commands.Refund{ReceiptID: id, Reason: "part", AmountUSD: "0.01", TransactionHash: hash(i + 1), By: payMerchant}); err != nil {
			t.Fatalf("refund %d: %v", i, err)
		}
	}
	reserves := held.reserves
	_, err := h.Handle(e.ctx, commands.Refund{ReceiptID: id, Reason: "part", AmountUSD: "0.01", TransactionHash: hash(999), By: payMerchant})
	wantRefusal(t, err, "forbidden", fmt.Sprintf("At most %d refunds with a transaction hash per receipt", receipt.MaxRefundRecords))
	if held.reserves != reserves {
		t.Fatalf("the refused refund held its hash: %d reserves, want %d", held.reserves, reserves)
	}
	out, err := h.Handle(e.ctx, commands.Refund{ReceiptID: id, Reason: "rest", By: payMerchant})
	if err != nil || out.State.Status != receipt.StatusRefundRequested {
		t.Fatalf("a request without a hash: %v", err)
	}
}
