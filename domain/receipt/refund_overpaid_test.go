package receipt

import (
	"encoding/json"
	"errors"
	"testing"
)

const hashD = "0xdddd000000000000000000000000000000000000000000000000000000000000"

// overpaid is paidOnChain (10 USDC for a 10.00 order) and 2 USDC more from the customer.
func overpaid(t *testing.T) State {
	t.Helper()
	s := apply(t, paidOnChain(t), []Event{
		DepositTransferSeen{TransactionHash: "0xmore", LogIndex: 0, BlockNumber: 6, BlockHash: "0xb6", Sender: "0xc0ffee", Token: "USDC", AmountUnits: "2000000", Decimals: 6, At: 5},
		DepositTransferConfirmed{TransactionHash: "0xmore", LogIndex: 0, BlockNumber: 6, BlockHash: "0xb6", At: 6},
	}, nil)
	if s.Status != StatusPaid || s.ExcessCents() != 200 {
		t.Fatalf("setup: %s excess %d", s.Status, s.ExcessCents())
	}
	return s
}

func excessOrder(cents int64, hash string) RefundOrder {
	return RefundOrder{AmountCents: cents, Reason: "overpaid", TransactionHash: hash, Excess: true, By: "m", At: 20}
}

// Stop 70: what an overpaid receipt received beyond its total is refunded apart from the order.
// The customer sent 12 for a 10.00 order: the 2 of excess and the whole 10 come back, and not a
// cent more; before, the excess counted against the total and at most 10 came back.
func TestExcessRefundedApartFromTheOrder(t *testing.T) {
	t.Parallel()
	s := overpaid(t)
	if s.RefundableCents() != 1000 || s.ExcessUnrefundedCents() != 200 {
		t.Fatalf("refundable %d excess %d, want 1000 200", s.RefundableCents(), s.ExcessUnrefundedCents())
	}
	for name, o := range map[string]RefundOrder{"without a hash": excessOrder(200, ""), "beyond the excess": excessOrder(201, hashA)} {
		if _, err := RequestRefund(s, o); err == nil || (name == "without a hash") != errors.Is(err, ErrExcessNeedsHash) {
			t.Fatalf("%s: %v", name, err)
		}
	}
	evs, err := RequestRefund(s, excessOrder(0, hashA)) // the whole excess
	if err != nil || len(evs) != 1 || evs[0].(RefundRequested).AmountCents != 200 || !evs[0].(RefundRequested).OfExcess {
		t.Fatalf("the excess: %+v %v", evs, err)
	}
	s = apply(t, s, evs, nil)
	if s.Status != StatusPaid || s.RefundableCents() != 1000 || s.OrderRequestedCents() != 0 || s.ExcessUnrefundedCents() != 0 {
		t.Fatalf("excess claimed: %s refundable %d order requested %d excess left %d", s.Status, s.RefundableCents(), s.OrderRequestedCents(), s.ExcessUnrefundedCents())
	}
	s = processWith(t, s, hashA, "2000000")
	if s.Status != StatusPaid || s.OrderRefundedCents() != 0 || s.RefundedExcessCents() != 200 || s.RefundableCents() != 1000 {
		t.Fatalf("excess refunded: %s order %d excess %d refundable %d", s.Status, s.OrderRefundedCents(), s.RefundedExcessCents(), s.RefundableCents())
	}
	if _, err := RequestRefund(s, excessOrder(1, hashB)); !errors.Is(err, ErrAmount) {
		t.Fatalf("a cent of excess more: %v", err)
	}
	s = then(t, s)(RequestRefund(s, RefundOrder{Reason: "order", TransactionHash: hashB, By: "m", At: 30}))
	s = processWith(t, s, hashB, "10000000")
	if s.Status != StatusRefunded || s.OrderRefundedCents() != 1000 || s.RefundedExcessCents() != 200 || s.RefundedCents != 1200 {
		t.Fatalf("order refunded: %s order %d excess %d all %d", s.Status, s.OrderRefundedCents(), s.RefundedExcessCents(), s.RefundedCents)
	}
	for _, o := range []RefundOrder{excessOrder(1, hashC), {AmountCents: 1, Reason: "r", TransactionHash: hashC, By: "m"}} {
		if _, err := RequestRefund(s, o); err == nil {
			t.Fatalf("a cent more than the customer sent (excess %v) taken", o.Excess)
		}
	}
}

// A refund of the excess is taken in every status of a paid receipt, the order refunded in whole
// included, and changes none: the order is not being refunded.
func TestExcessRefundLeavesTheStatus(t *testing.T) {
	t.Parallel()
	requested := then(t, overpaid(t))(RequestRefund(overpaid(t), RefundOrder{AmountCents: 300, Reason: "r", By: "m", At: 10}))
	refunded := overpaid(t)
	refunded = then(t, refunded)(RequestRefund(refunded, RefundOrder{Reason: "r", TransactionHash: hashD, By: "m", At: 10}))
	refunded = processWith(t, refunded, hashD, "10000000")
	pending := apply(t, generated(), nil, nil)
	for name, c := range map[string]struct {
		s    State
		want Status
		err  error
	}{
		"paid":             {overpaid(t), StatusPaid, nil},
		"refund requested": {requested, StatusRefundRequested, nil},
		"order refunded":   {refunded, StatusRefunded, nil},
		"pending":          {pending, StatusPending, ErrState},
	} {
		evs, err := RequestRefund(c.s, excessOrder(200, hashA))
		if !errors.Is(err, c.err) || (err == nil) != (c.err == nil) {
			t.Fatalf("%s: %v, want %v", name, err, c.err)
		}
		if err != nil {
			continue
		}
		after := processWith(t, apply(t, c.s, evs, nil), hashA, "2000000")
		if after.Status != c.want || after.RefundedExcessCents() != 200 || after.Unrefunded() != c.s.Unrefunded() {
			t.Fatalf("%s: %s excess %d unrefunded %d (was %d)", name, after.Status, after.RefundedExcessCents(), after.Unrefunded(), c.s.Unrefunded())
		}
		back := then(t, after)(RevertRefund(after, hashA, 90))
		if back.Status != c.want || back.ExcessUnrefundedCents() != 0 || back.RefundedExcessCents() != 0 {
			t.Fatalf("%s reverted: %s excess left %d refunded %d", name, back.Status, back.ExcessUnrefundedCents(), back.RefundedExcessCents())
		}
		refused := then(t, back)(RefuseRefund(back, hashA, "gone", 95))
		if refused.Status != c.want || refused.ExcessUnrefundedCents() != 200 {
			t.Fatalf("%s refused: %s excess left %d", name, refused.Status, refused.ExcessUnrefundedCents())
		}
	}
}

// A failed receipt paid twice after its late watch (10 + 10 of a 10.00 total) gives back all 20:
// before, its funds were valued at most at the total and only 10 came back. refundedUsd shows
// them up to the total, the rest as the excess.
func TestFailedReceiptPaidTwiceRefundsEverything(t *testing.T) {
	t.Parallel()
	s := windowed()
	s.Receipt.DepositAddress = "0xdeposit"
	s = expired(t, s)
	for i, tx := range []string{"0xL1", "0xL2"} {
		s, _ = observe(t, s, DepositObservation{Transfer: DepositTransferSeen{TransactionHash: tx, BlockNumber: 90, BlockHash: "0xb90",
			Sender: "0xc0ffee", Token: "USDC", AmountUnits: "10000000", Decimals: 6}, Confirmed: true, At: lateEnd + 5 + int64(i)})
	}
	if s.Status != StatusFailed || s.AmountReceived() != "20.00" || s.RefundableCents() != 2000 {
		t.Fatalf("paid twice late: %s received %s refundable %d", s.Status, s.AmountReceived(), s.RefundableCents())
	}
	if _, err := RequestRefund(s, RefundOrder{AmountCents: 2001, Reason: "r", TransactionHash: hashA, By: "m"}); !errors.Is(err, ErrAmount) {
		t.Fatalf("beyond what the customer sent: %v", err)
	}
	evs, err := RequestRefund(s, excessOrder(0, hashA)) // the excess flag proposes what is beyond the total
	if err != nil || evs[0].(RefundRequested).AmountCents != 1000 || evs[0].(RefundRequested).OfExcess {
		t.Fatalf("the excess of a failed receipt: %+v %v", evs, err)
	}
	s = then(t, s)(RequestRefund(s, RefundOrder{Reason: "r", TransactionHash: hashA, By: "m", At: lateEnd + 50}))
	if s.OrderRequestedCents() != 1000 {
		t.Fatalf("requested shown %d, want the total", s.OrderRequestedCents())
	}
	s = processWith(t, s, hashA, "20000000")
	if s.Status != StatusFailed || s.RefundedCents != 2000 || s.OrderRefundedCents() != 1000 || s.RefundedExcessCents() != 1000 || s.RefundableCents() != 0 {
		t.Fatalf("all back: %s all %d shown %d excess %d refundable %d", s.Status, s.RefundedCents, s.OrderRefundedCents(), s.RefundedExcessCents(), s.RefundableCents())
	}
	if _, err := RequestRefund(s, RefundOrder{AmountCents: 1, Reason: "r", TransactionHash: hashB, By: "m"}); !errors.Is(err, ErrAmount) {
		t.Fatalf("a cent more: %v", err)
	}
}

// A funds' claim refused after the late payment paid the receipt leaves those funds as excess:
// they are refunded as the excess, the order's whole total stays refundable (14 sent, 14 back).
func TestFundsClaimRefusedAfterThePaymentIsExcess(t *testing.T) {
	t.Parallel()
	s := paidLateAfterFundsRefund(t, false)
	s = then(t, s)(RefuseRefund(s, hashA, "not on chain", 45))
	if s.ExcessUnrefundedCents() != 400 || s.RefundableCents() != 1000 {
		t.Fatalf("refused: excess %d refundable %d, want 400 1000", s.ExcessUnrefundedCents(), s.RefundableCents())
	}
	s = then(t, s)(RequestRefund(s, excessOrder(0, hashB)))
	s = processWith(t, s, hashB, "4000000")
	s = then(t, s)(RequestRefund(s, RefundOrder{Reason: "r", TransactionHash: hashC, By: "m", At: 60}))
	s = processWith(t, s, hashC, "10000000")
	if s.Status != StatusRefunded || s.RefundedCents != 1400 || s.OrderRefundedCents() != 1000 || s.RefundedExcessCents() != 400 ||
		s.RefundedBeforePaymentCents() != 0 || s.ExcessUnrefundedCents() != 0 {
		t.Fatalf("everything back: %s all %d order %d excess %d before %d", s.Status, s.RefundedCents, s.OrderRefundedCents(), s.RefundedExcessCents(), s.RefundedBeforePaymentCents())
	}
}

// The read model stores the state as JSON: the excess's part survives it.
func TestExcessPartStoredWithTheState(t *testing.T) {
	t.Parallel()
	s := then(t, overpaid(t))(RequestRefund(overpaid(t), excessOrder(150, hashA)))
	s = processWith(t, s, hashA, "1500000")
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back State
	if err := json.Unmarshal(b, &back); err != nil || back.ExcessRefundedCents != 150 || !back.Refunds[0].OfExcess || back.ExcessUnrefundedCents() != 50 {
		t.Fatalf("stored: %s (%v)", b, err)
	}
}
