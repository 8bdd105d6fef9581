package receipt

import (
	"errors"
	"fmt"
	"testing"
)

// Stop 67: a receipt records at most MaxRefundRecords refunds with a transaction hash. A claim
// refused frees its place among the open ones, so a merchant claiming unrelated transactions
// again and again grew the receipt's stream and its refunds[] without end; a request without a
// hash still goes through.
func TestRefundRecordsBounded(t *testing.T) {
	t.Parallel()
	s := paidOnChain(t)
	for i := range MaxRefundRecords {
		hash := fmt.Sprintf("0x%064x", i+1)
		s = then(t, s)(RequestRefund(s, RefundOrder{AmountCents: 100, Reason: "r", TransactionHash: hash, By: "m", At: int64(20 + i)}))
		s = then(t, s)(RefuseRefund(s, hash, "no transfer to a payer", int64(20+i)))
	}
	if len(s.Refunds) != MaxRefundRecords || s.Status != StatusPaid || s.OpenRefundClaims() != 0 {
		t.Fatalf("%d refunds, %s, %d open", len(s.Refunds), s.Status, s.OpenRefundClaims())
	}
	next := RefundOrder{AmountCents: 100, Reason: "r", TransactionHash: fmt.Sprintf("0x%064x", 999), By: "m", At: 90}
	if _, err := RequestRefund(s, next); !errors.Is(err, ErrRefundRecordsExhausted) || !errors.Is(err, ErrState) {
		t.Fatalf("claim past the bound: %v", err)
	}
	if CanClaimRefund(s) {
		t.Fatal("the dashboard would offer a wallet refund the API refuses")
	}
	if _, err := RequestRefund(s, RefundOrder{AmountCents: 100, Reason: "r", By: "m", At: 91}); err != nil {
		t.Fatalf("a request without a hash: %v", err)
	}
	// A refund on the merchant's word (a receipt paid by the processor) is bounded alike.
	w := paidByProcessor(t)
	for i := range MaxRefundRecords {
		w = then(t, w)(RequestRefund(w, RefundOrder{AmountCents: 1, Reason: "r", TransactionHash: fmt.Sprintf("0x%064x", i+1), By: "m", At: int64(20 + i)}))
	}
	if _, err := RequestRefund(w, next); !errors.Is(err, ErrRefundRecordsExhausted) {
		t.Fatalf("the merchant's word past the bound: %v", err)
	}
}
