package receipt

import (
	"errors"
	"testing"
)

const hashC = "0xcccc000000000000000000000000000000000000000000000000000000000000"

// paidLateAfterFundsRefund is stop 68's residual: the customer sent 4 USDC (the window ended),
// the merchant claimed their refund (processed when process is set), then the customer paid
// the 10 late, which paid the receipt.
func paidLateAfterFundsRefund(t *testing.T, process bool) State {
	t.Helper()
	s := failedWatchedUntil(t, 1_000_000) // 4 of 10 USDC, late payments watched
	s = then(t, s)(RequestRefund(s, RefundOrder{Reason: "short", TransactionHash: hashA, By: "m", At: 20}))
	if process {
		s = processWith(t, s, hashA, "4000000")
	}
	paid, _ := observe(t, s, DepositObservation{Transfer: DepositTransferSeen{TransactionHash: "0x10", LogIndex: 0, BlockNumber: 8,
		BlockHash: "0xb810", Sender: "0xc0ffee", Token: "USDC", AmountUnits: "10000000", Decimals: 6}, Confirmed: true, At: 40})
	if paid.Status != StatusPaid || paid.AmountReceived() != "14.00" {
		t.Fatalf("setup: %s received %s", paid.Status, paid.AmountReceived())
	}
	return paid
}

// processWith proves the claim of hash with units of USDC sent back to the customer.
func processWith(t *testing.T, s State, hash, units string) State {
	t.Helper()
	p, reason, ok := JudgeRefund(s, RefundEvidence{TransactionHash: hash, Succeeded: true, BlockNumber: 9, BlockHash: "0xb9" + hash[2:6], At: 50,
		Transfers: []ChainTransfer{{Token: "USDC", Decimals: 6, From: "0xmerchant", To: "0xc0ffee", AmountUnits: units}}})
	if !ok {
		t.Fatalf("judged %s: %s", hash, reason)
	}
	return then(t, s)(ProcessRefund(s, p))
}

// Stop 69: funds a failed receipt returned before a late payment paid it are refunds of those
// funds, not of the order. The customer who sent 4 (returned) and then 10 (the payment) can get
// the whole 10 back, and not a unit more: before, only 6 could be refunded through the ledger
// (the 4 counted against the order's total), so a customer who paid 14 got 10 back.
func TestFundsReturnedBeforeThePaymentLeaveTheOrderRefundable(t *testing.T) {
	t.Parallel()
	s := paidLateAfterFundsRefund(t, true)
	if s.RefundableCents() != 1000 || s.ClaimableCents() != 1000 || s.OrderRefundedCents() != 0 || s.RefundedBeforePaymentCents() != 400 {
		t.Fatalf("paid late: refundable %d claimable %d order refunded %d before payment %d, want 1000 1000 0 400",
			s.RefundableCents(), s.ClaimableCents(), s.OrderRefundedCents(), s.RefundedBeforePaymentCents())
	}
	if _, err := RequestRefund(s, RefundOrder{AmountCents: 1001, Reason: "r", TransactionHash: hashB, By: "m", At: 60}); !errors.Is(err, ErrAmount) {
		t.Fatalf("1001 cents of a 10.00 order: %v", err)
	}
	s = then(t, s)(RequestRefund(s, RefundOrder{AmountCents: 600, Reason: "r", TransactionHash: hashB, By: "m", At: 60}))
	s = processWith(t, s, hashB, "6000000")
	if s.Status != StatusPaid || s.RefundableCents() != 400 || s.OrderRefundedCents() != 600 {
		t.Fatalf("after 6.00: %s refundable %d order refunded %d", s.Status, s.RefundableCents(), s.OrderRefundedCents())
	}
	if _, err := RequestRefund(s, RefundOrder{AmountCents: 401, Reason: "r", TransactionHash: hashC, By: "m", At: 70}); !errors.Is(err, ErrAmount) {
		t.Fatalf("one cent beyond the order: %v", err)
	}
	s = then(t, s)(RequestRefund(s, RefundOrder{Reason: "r", TransactionHash: hashC, By: "m", At: 70}))
	s = processWith(t, s, hashC, "4000000")
	if s.Status != StatusRefunded || s.OrderRefundedCents() != 1000 || s.RefundedCents != 1400 || s.RefundableCents() != 0 {
		t.Fatalf("whole order: %s order refunded %d all %d refundable %d", s.Status, s.OrderRefundedCents(), s.RefundedCents, s.RefundableCents())
	}
	if _, err := RequestRefund(s, RefundOrder{AmountCents: 1, Reason: "r", TransactionHash: "0xdddd" + hashA[6:], By: "m", At: 80}); !errors.Is(err, ErrState) {
		t.Fatalf("a unit more after everything came back: %v", err)
	}
}

// A claim of the funds still waiting for the chain when the late payment pays the receipt is
// theirs too: the order's whole total can be requested, the claim's verdict does not settle the
// order's open request, and a revert of the funds' refund does not make the paid receipt
// refund_requested.
func TestFundsClaimPendingAtThePayment(t *testing.T) {
	t.Parallel()
	s := paidLateAfterFundsRefund(t, false)
	if s.RefundableCents() != 1000 || s.OrderRequestedCents() != 0 || s.RequestedCents != 400 {
		t.Fatalf("refundable %d order requested %d with the funds' claim open, want 1000 0", s.RefundableCents(), s.OrderRequestedCents())
	}
	refused := then(t, s)(RefuseRefund(s, hashA, "no", 45))
	if refused.Status != StatusPaid || refused.RefundableCents() != 1000 || refused.ExcessCents() != 400 {
		t.Fatalf("funds' claim refused: %s refundable %d excess %d", refused.Status, refused.RefundableCents(), refused.ExcessCents())
	}
	s = then(t, s)(RequestRefund(s, RefundOrder{AmountCents: 1000, Reason: "r", By: "m", At: 45}))
	if s.Status != StatusRefundRequested || s.RefundableCents() != 0 {
		t.Fatalf("order requested: %s refundable %d", s.Status, s.RefundableCents())
	}
	s = processWith(t, s, hashA, "4000000")
	if s.Status != StatusRefundRequested || s.OrderRefundedCents() != 0 || s.RefundedBeforePaymentCents() != 400 {
		t.Fatalf("funds' claim processed: %s order refunded %d before payment %d", s.Status, s.OrderRefundedCents(), s.RefundedBeforePaymentCents())
	}
	s = then(t, s)(RequestRefund(s, RefundOrder{AmountCents: 1000, Reason: "r", TransactionHash: hashB, By: "m", At: 60}))
	s = processWith(t, s, hashB, "10000000")
	if s.Status != StatusRefunded || s.RefundedCents != 1400 || s.RequestedCents != 0 {
		t.Fatalf("order refunded: %s refunded %d requested %d", s.Status, s.RefundedCents, s.RequestedCents)
	}

	p := paidLateAfterFundsRefund(t, true)
	p = then(t, p)(RevertRefund(p, hashA, 60))
	if p.Status != StatusPaid || p.RefundableCents() != 1000 || p.RefundedBeforePaymentCents() != 0 {
		t.Fatalf("funds' refund reverted: %s refundable %d before payment %d", p.Status, p.RefundableCents(), p.RefundedBeforePaymentCents())
	}
	p = processWith(t, p, hashA, "4000000")
	if p.Status != StatusPaid || p.RefundedBeforePaymentCents() != 400 || p.RefundableCents() != 1000 {
		t.Fatalf("processed again: %s before payment %d refundable %d", p.Status, p.RefundedBeforePaymentCents(), p.RefundableCents())
	}
}

// A failed receipt's refunds are of its funds and show as its refunds (refundedUsd), as before.
func TestFundsRefundedOfAFailedReceiptAreItsRefunds(t *testing.T) {
	t.Parallel()
	s := failedWatchedUntil(t, 1_000_000)
	s = then(t, s)(RequestRefund(s, RefundOrder{Reason: "short", TransactionHash: hashA, By: "m", At: 20}))
	s = processWith(t, s, hashA, "4000000")
	if s.Status != StatusFailed || s.OrderRefundedCents() != 400 || s.RefundedBeforePaymentCents() != 0 || s.RefundableCents() != 0 {
		t.Fatalf("failed: %s shown %d before payment %d refundable %d", s.Status, s.OrderRefundedCents(), s.RefundedBeforePaymentCents(), s.RefundableCents())
	}
}
