package receipt

import "testing"

// TestADeclinedRetryEndsItsSession: a customer's card is declined, a second card session is
// declined too. The second failure is of the receipt's current attempt, so not stale: it replaces
// the first (the receipt shows the second decline's reason) and the session is over, so the
// window expires the receipt. Before, it was recorded as ignored ("a failure never replaces
// failed"): the session held the window open for good, the receipt was never expired, the
// reconciliation asked about it on every pass, and it showed the first decline's reason. A late
// repeat of the first session's failure still changes nothing.
func TestADeclinedRetryEndsItsSession(t *testing.T) {
	t.Parallel()
	first := withEvents(t, windowed(), AttemptStarted{AttemptID: "a", Kind: "onramp", SessionID: "cos_1", OpenedBy: "service", At: 2})
	evs, err := DecideProcessorUpdate(first, ProcessorUpdate{SessionID: "cos_1", AttemptID: "a", Status: "rejected", ErrorCode: "insufficient_funds", At: 3})
	declined := apply(t, first, evs, err)
	retried := withEvents(t, declined, AttemptStarted{AttemptID: "b", Kind: "onramp", SessionID: "cos_2", OpenedBy: "service", At: 900})
	if !retried.OnrampOpen() {
		t.Fatal("the retried session holds no window")
	}
	if evs, err := DecideProcessorUpdate(retried, ProcessorUpdate{SessionID: "cos_1", AttemptID: "a", Status: "rejected", At: 950}); err != nil || len(evs) != 0 {
		t.Fatalf("the first session's failure again: %v %v", types(evs), err)
	}
	evs, err = DecideProcessorUpdate(retried, ProcessorUpdate{SessionID: "cos_2", AttemptID: "b", Status: "rejected", ErrorCode: "expired_card",
		RequestID: "req_2", At: 1000})
	again := apply(t, retried, evs, err)
	if f := again.FailureView(); types(evs) != EventFailed || again.Status != StatusFailed || f == nil || f.AttemptID != "b" ||
		f.Code != "PORTAL_PAY_EXPIRED_CARD" || f.ProviderRequestID != "req_2" {
		t.Fatalf("the second decline: %s, status %s, failure %+v", types(evs), again.Status, f)
	}
	if again.OnrampOpen() {
		t.Fatal("the declined retry still holds the window")
	}
	if evs, err := Expire(again, winEnd, monitor); err != nil || len(evs) != 1 {
		t.Fatalf("the window's end after the second decline: %v %v", evs, err)
	}
	if evs, err := DecideProcessorUpdate(again, ProcessorUpdate{SessionID: "cos_2", AttemptID: "b", Status: "rejected", At: 1100}); err != nil || len(evs) != 0 {
		t.Fatalf("the second decline again: %v %v", types(evs), err)
	}
}
