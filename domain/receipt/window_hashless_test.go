package receipt

import "testing"

// A processor success without a transaction hash on an expired receipt is recorded as
// PaymentIgnored (its funds went somewhere and want a refund). The key was the hash alone, so a
// second session's hashless success found the first one's key ("processor:") and left nothing in
// the history to refund, as 9074438 fixed for the open window. Recorded once per attempt now.
func TestExpiredHashlessProcessorIgnoresAreOncePerAttempt(t *testing.T) {
	t.Parallel()
	exp := expired(t, windowed())
	cents := int64(1000)
	success := func(session string) ProcessorUpdate {
		return ProcessorUpdate{SessionID: session, Status: "fulfillment_complete", SourceAmountCents: &cents, At: winEnd + 5}
	}
	s := exp
	for _, session := range []string{"cos_1", "cos_2"} {
		evs, err := DecideProcessorUpdate(s, success(session))
		if types(evs) != EventPaymentIgnored {
			t.Fatalf("hashless success of %s after expiry: %s (%v), want it recorded", session, types(evs), err)
		}
		s = apply(t, s, evs, err)
		if evs, err := DecideProcessorUpdate(s, success(session)); err != nil || len(evs) != 0 {
			t.Fatalf("the same session's success again: %v %v", evs, err)
		}
	}
	if s.Status != StatusFailed {
		t.Fatalf("status %s", s.Status)
	}
	hashed := success("cos_3")
	hashed.TransactionHash = "0xP"
	evs, err := DecideProcessorUpdate(s, hashed)
	s = apply(t, s, evs, err)
	hashed.SessionID = "cos_4" // the same transaction reported by another session: one payment
	if evs, err := DecideProcessorUpdate(s, hashed); err != nil || len(evs) != 0 {
		t.Fatalf("a hashed success again: %v %v", evs, err)
	}
}
