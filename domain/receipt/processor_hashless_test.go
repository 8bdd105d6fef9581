package receipt

import "testing"

// A processor success without a transaction hash that pays nothing (underpaid; a second payment
// of a paid receipt) was recorded once per receipt: ignored payments were keyed by hash alone, so
// a second session's hashless success found the first one's key and recorded nothing. Its attempt
// was then never ended, and an open onramp attempt holds the payment window: after a second
// underpaid card payment the receipt stayed pending for good (never expired, no webhook), and a
// second duplicate payment of a paid receipt left no trace to refund. A hashless one is now
// recorded once per attempt.
func TestHashlessProcessorIgnoresAreOncePerAttempt(t *testing.T) {
	t.Parallel()
	cents := int64(999)
	success := func(attempt, session string, c *int64) ProcessorUpdate {
		return ProcessorUpdate{SessionID: session, AttemptID: attempt, Status: "fulfillment_complete", SourceAmountCents: c, SessionOwner: "r", At: 9}
	}
	decide := func(s State, u ProcessorUpdate) (State, []Event) {
		t.Helper()
		evs, err := DecideProcessorUpdate(s, u)
		return apply(t, s, evs, err), evs
	}
	s := withEvents(t, windowed(), AttemptStarted{AttemptID: "a", Kind: "onramp", SessionID: "cos_1", OpenedBy: "service", At: 2})
	s, _ = decide(s, success("a", "cos_1", &cents))
	s = withEvents(t, s, AttemptStarted{AttemptID: "b", Kind: "onramp", SessionID: "cos_2", OpenedBy: "service", At: 10})
	s, evs := decide(s, success("b", "cos_2", &cents))
	if len(evs) != 1 || s.OnrampOpen() {
		t.Fatalf("the second session's underpaid success: %v; onramp still open: %v", evs, s.OnrampOpen())
	}
	if evs, err := Expire(s, winEnd, monitor); err != nil || len(evs) != 1 {
		t.Fatalf("the window did not fail the receipt after two underpaid sessions: %v %v", evs, err)
	}
	if _, again := decide(s, success("b", "cos_2", &cents)); len(again) != 0 {
		t.Fatalf("the same session's success again: %v", again)
	}

	full := int64(1000)
	paid := withEvents(t, windowed(), AttemptStarted{AttemptID: "a", Kind: "onramp", SessionID: "cos_1", OpenedBy: "service", At: 2})
	paid, _ = decide(paid, success("a", "cos_1", &full))
	for _, attempt := range []string{"b", "c"} {
		paid = withEvents(t, paid, AttemptStarted{AttemptID: attempt, Kind: "onramp", SessionID: "cos_" + attempt, OpenedBy: "processor", At: 10})
	}
	if paid.Status != StatusPaid {
		t.Fatalf("status %s", paid.Status)
	}
	for _, attempt := range []string{"b", "c"} {
		var evs []Event
		if paid, evs = decide(paid, success(attempt, "cos_"+attempt, &full)); len(evs) != 1 {
			t.Fatalf("a second payment of the paid receipt (attempt %s): %v, want it recorded", attempt, evs)
		}
	}
}
