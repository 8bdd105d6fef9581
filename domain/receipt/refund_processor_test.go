package receipt

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// owesProcessorPayments is a receipt of 10.00 paid by card session b, owing back a short ACH
// completion of 6.00 (session a, before b) and a second card payment of 10.00 (session c).
func owesProcessorPayments(t *testing.T) State {
	t.Helper()
	hash := func(c string) string { return "0x" + strings.Repeat(c, 64) }
	s := withEvents(t, windowed(), AttemptStarted{AttemptID: "a", Kind: "onramp", SessionID: "cos_a", At: 2}, ACHAccepted{AttemptID: "a", At: 3})
	s = reported(t, s, ProcessorUpdate{SessionID: "cos_a", AttemptID: "a", Status: "fulfillment_complete", SourceAmountCents: cents(600), SourceAmountUSD: "6.00", TransactionHash: hash("1"), At: 10})
	s = withEvents(t, s, AttemptStarted{AttemptID: "b", Kind: "onramp", SessionID: "cos_b", At: 11}, AttemptStarted{AttemptID: "c", Kind: "onramp", SessionID: "cos_c", At: 12})
	s = reported(t, s, ProcessorUpdate{SessionID: "cos_b", AttemptID: "b", Status: "fulfillment_complete", SourceAmountCents: cents(1000), SourceAmountUSD: "10.00", TransactionHash: hash("2"), At: 13})
	s = reported(t, s, ProcessorUpdate{SessionID: "cos_c", AttemptID: "c", Status: "fulfillment_complete", SourceAmountCents: cents(1000), SourceAmountUSD: "10.00", TransactionHash: hash("3"), At: 14})
	if cents, _ := s.ProcessorToRefundCents(); s.Status != StatusPaid || s.ProcessorPaymentsToRefund() != 2 || cents != 1600 {
		t.Fatalf("setup: %s, %d to refund (%d cents)", s.Status, s.ProcessorPaymentsToRefund(), cents)
	}
	return s
}

func processorOrder(amount int64, hash string) RefundOrder {
	return RefundOrder{AmountCents: amount, Reason: "second card payment", TransactionHash: hash, Processor: true, By: "m", At: 20}
}

// Stop 71 (the refunds review): the processor payments a receipt owes back are refunded apart
// from the order, and processorPaymentsToRefund and processorToRefundUsd go down with them.
// Before, the only refund was the order's: returning the 6.00 took 6.00 of the order (4.00 left
// of it) and the receipt still read 2 payments, 16.00, to refund.
func TestProcessorPaymentsRefundedApart(t *testing.T) {
	t.Parallel()
	s := owesProcessorPayments(t)
	s = then(t, s)(RequestRefund(s, processorOrder(600, hashA))) // the short ACH payment's amount: that one
	if cents, _ := s.ProcessorToRefundCents(); s.ProcessorPaymentsToRefund() != 1 || cents != 1000 {
		t.Fatalf("after 6.00: %d to refund, %d cents; want 1, 1000", s.ProcessorPaymentsToRefund(), cents)
	}
	if s.Status != StatusPaid || s.OrderUnrefunded() != 1000 || s.RefundedCents != 0 || s.OrderRefundedCents() != 0 || s.ProcessorRefundedCents != 600 {
		t.Fatalf("the order after 6.00 of processor payments: %s, unrefunded %d, refunded %d/%d, processor %d",
			s.Status, s.OrderUnrefunded(), s.RefundedCents, s.OrderRefundedCents(), s.ProcessorRefundedCents)
	}
	if r := s.Refunds[0]; !r.OfProcessor || r.State != RefundStateProcessed || r.Proof != ProofMerchant {
		t.Fatalf("record: %+v", r)
	}
	for name, tc := range map[string]struct {
		order RefundOrder
		want  error
	}{
		"a cent more than owed": {processorOrder(1001, hashB), ErrAmount},
		"without a hash":        {processorOrder(100, ""), ErrProcessorRefundNeedsHash},
		"its hash again":        {processorOrder(100, hashA), ErrRefundHashUsed},
	} {
		if _, err := RequestRefund(s, tc.order); !errors.Is(err, tc.want) {
			t.Fatalf("%s: %v, want %v", name, err, tc.want)
		}
	}
	s = then(t, s)(RequestRefund(s, processorOrder(0, hashB))) // the rest: the second card payment's 10.00
	if cents, _ := s.ProcessorToRefundCents(); s.ProcessorPaymentsToRefund() != 0 || cents != 0 || s.ProcessorRefundedCents != 1600 {
		t.Fatalf("after the rest: %d to refund, %d cents, refunded %d", s.ProcessorPaymentsToRefund(), cents, s.ProcessorRefundedCents)
	}
	if _, err := RequestRefund(s, processorOrder(0, hashC)); !errors.Is(err, ErrAmount) {
		t.Fatalf("nothing left: %v", err)
	}
	s = then(t, s)(RequestRefund(s, RefundOrder{Reason: "returned", TransactionHash: hashC, By: "m", At: 30})) // the order's whole 10.00
	if s.Status != StatusRefunded || s.OrderRefundedCents() != 1000 || s.RefundedCents != 1000 {
		t.Fatalf("the order refunded: %s, %d/%d", s.Status, s.OrderRefundedCents(), s.RefundedCents)
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back State
	if err := json.Unmarshal(b, &back); err != nil || back.ProcessorRefundedCents != 1600 || !back.Refunds[0].OfProcessor || back.ProcessorPaymentsToRefund() != 0 {
		t.Fatalf("stored: %s (%v)", b, err)
	}
}

// A refund of an amount no payment owes is taken off the oldest first; a payment whose amount the
// processor did not report stays counted and bounds nothing; a receipt failed after the window
// refunds its late card payment and stays failed.
func TestProcessorPaymentsRefundedOldestFirst(t *testing.T) {
	t.Parallel()
	s := then(t, owesProcessorPayments(t))(RequestRefund(owesProcessorPayments(t), processorOrder(300, hashA)))
	if cents, _ := s.ProcessorToRefundCents(); s.ProcessorPaymentsToRefund() != 2 || cents != 1300 {
		t.Fatalf("after 3.00: %d to refund, %d cents; want 2, 1300", s.ProcessorPaymentsToRefund(), cents)
	}
	s = then(t, s)(RequestRefund(s, processorOrder(300, hashB))) // the short payment's 3.00 left
	if cents, _ := s.ProcessorToRefundCents(); s.ProcessorPaymentsToRefund() != 1 || cents != 1000 {
		t.Fatalf("after 3.00 more: %d to refund, %d cents; want 1, 1000", s.ProcessorPaymentsToRefund(), cents)
	}

	old, err := Decode(EventPaymentIgnored, []byte(`{"attemptId":"o","verifiedBy":"processor","why":"duplicate payment: the receipt is already paid; session cos_o reported a second payment of unknown USD, to be refunded","statusAtArrival":"paid","at":9}`))
	if err != nil {
		t.Fatal(err)
	}
	unknown := withEvents(t, windowed(), AttemptStarted{AttemptID: "o", Kind: "onramp", SessionID: "cos_o", At: 2}, old)
	if _, err := RequestRefund(unknown, processorOrder(0, hashA)); !errors.Is(err, ErrAmount) || unknown.ProcessorPaymentsToRefund() != 1 {
		t.Fatalf("unknown amount: %v, %d to refund", err, unknown.ProcessorPaymentsToRefund())
	}

	late := expired(t, withEvents(t, windowed(), AttemptStarted{AttemptID: "l", Kind: "onramp", SessionID: "cos_l", At: 2}, fail("l")))
	late = reported(t, late, ProcessorUpdate{SessionID: "cos_l", AttemptID: "l", Status: "fulfillment_complete", SourceAmountCents: cents(400), SourceAmountUSD: "4.00", At: winEnd + 5})
	late = then(t, late)(RequestRefund(late, processorOrder(0, hashA)))
	if cents, _ := late.ProcessorToRefundCents(); late.Status != StatusFailed || late.ProcessorPaymentsToRefund() != 0 || cents != 0 || late.RefundedCents != 0 {
		t.Fatalf("late: %s, %d to refund (%d cents), refunded %d", late.Status, late.ProcessorPaymentsToRefund(), cents, late.RefundedCents)
	}
}
