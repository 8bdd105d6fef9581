package receipt

import (
	"strings"
	"testing"
)

// TestAShortACHCompletionMakesTheReceiptPending: the processor completes an accepted ACH
// payment with less than is due. It pays nothing (PaymentIgnored, underpaid, with the amount) and
// the bank payment is over: the receipt is pending again, not ach_pending for good (no event left
// that status, the window never expired it, and a new start was refused). A new attempt may pay
// it, or its window fails it. The same completion again records nothing; a short success of
// another session on an ach_pending receipt leaves the accepted payment's status alone.
func TestAShortACHCompletionMakesTheReceiptPending(t *testing.T) {
	t.Parallel()
	s := Evolve(windowed(), AttemptStarted{AttemptID: "a", Kind: "onramp", SessionID: "cos_1", At: 2})
	accepted := withEvents(t, s, ACHAccepted{AttemptID: "a", At: 5})
	short := ProcessorUpdate{SessionID: "cos_1", AttemptID: "a", Status: "fulfillment_complete", SourceAmountCents: cents(600),
		SourceAmountUSD: "6.00", TransactionHash: "0x" + strings.Repeat("1", 64), At: winEnd + 10}
	evs, err := DecideProcessorUpdate(accepted, short)
	st := apply(t, accepted, evs, err)
	ig, ok := onlyIgnored(evs)
	if !ok || !ig.Reopened || ig.AmountUnits != "600" || ig.Token != "USD" || !strings.Contains(ig.Why, "underpaid") ||
		st.Status != StatusPending || st.PreviousStatus != StatusACHPending || st.Payment != nil {
		t.Fatalf("short ACH completion: %s %+v, status %s", types(evs), ig, st.Status)
	}
	if again, err := DecideProcessorUpdate(st, short); err != nil || len(again) != 0 {
		t.Fatalf("the same completion again: %v %v", types(again), err)
	}
	if err := CanStartAttempt(st); err != nil {
		t.Fatalf("a new attempt on the reopened receipt: %v", err)
	}
	if st.OnrampOpen() || !st.WindowDue(winEnd+20) {
		t.Fatalf("the reopened receipt holds its window: open %v", st.OnrampOpen())
	}
	if exp := expired(t, st); exp.Status != StatusFailed {
		t.Fatalf("expired: %s", exp.Status)
	}

	other := withEvents(t, Evolve(windowed(), AttemptStarted{AttemptID: "z", Kind: "onramp", SessionID: "cos_0", At: 1}),
		AttemptStarted{AttemptID: "a", Kind: "onramp", SessionID: "cos_1", At: 2}, ACHAccepted{AttemptID: "a", At: 5})
	evs, err = DecideProcessorUpdate(other, ProcessorUpdate{SessionID: "cos_0", AttemptID: "z", Status: "fulfillment_complete",
		SourceAmountCents: cents(100), TransactionHash: "0x" + strings.Repeat("2", 64), At: 9})
	st = apply(t, other, evs, err)
	if ig, ok := onlyIgnored(evs); !ok || ig.Reopened || st.Status != StatusACHPending {
		t.Fatalf("another session's short success: %s %+v, status %s", types(evs), ig, st.Status)
	}
}

// onlyIgnored is evs's PaymentIgnored when it is the only event.
func onlyIgnored(evs []Event) (PaymentIgnored, bool) {
	if len(evs) != 1 {
		return PaymentIgnored{}, false
	}
	ig, ok := evs[0].(PaymentIgnored)
	return ig, ok
}
