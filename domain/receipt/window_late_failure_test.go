package receipt

import "testing"

// TestAnExpiryKeepsAFailureThatCameAfterTheWindow: a receipt failed by its payment after its
// window ended (an ACH return days later) is expired right after (the late-payment watch starts),
// but the window did not fail it: its failure stays the payment's. Before, the expiry replaced the
// return's PORTAL_PAY_INSUFFICIENT_FUNDS by PORTAL_SESSION_EXPIRED in every status read within a
// second of the merchant's failed webhook naming the return. A card's decline is still replaced
// (within the window or after it): the customer can only start again on a new receipt.
func TestAnExpiryKeepsAFailureThatCameAfterTheWindow(t *testing.T) {
	t.Parallel()
	day := int64(86_400_000)
	session := withEvents(t, windowed(), AttemptStarted{AttemptID: "a", Kind: "onramp", SessionID: "cos_1", OpenedBy: "service", At: 2})
	for _, c := range []struct {
		name     string
		s        State
		failedAt int64
		want     string
	}{
		{"an ACH return after the window", withEvents(t, session, ACHAccepted{AttemptID: "a", At: 5_000}), winEnd + 3*day, "PORTAL_PAY_INSUFFICIENT_FUNDS"},
		{"a card declined within the window", session, 9_000, CodeWindowExpired},
		{"a card declined after the window", session, winEnd + day, CodeWindowExpired},
	} {
		t.Run(c.name, func(t *testing.T) {
			evs, err := DecideProcessorUpdate(c.s, ProcessorUpdate{SessionID: "cos_1", AttemptID: "a", Status: "rejected",
				ErrorCode: "insufficient_funds", At: c.failedAt})
			failed := apply(t, c.s, evs, err)
			if failed.Status != StatusFailed {
				t.Fatalf("failed: %s (%s)", failed.Status, types(evs))
			}
			evs, err = Expire(failed, max(c.failedAt, winEnd)+1_000, monitor)
			expired := apply(t, failed, evs, err)
			if !expired.Expired() || expired.Status != StatusFailed {
				t.Fatalf("expired %v, status %s", expired.Expired(), expired.Status)
			}
			if f := expired.FailureView(); f == nil || f.Code != c.want {
				t.Fatalf("failure after the expiry %+v, want %s", f, c.want)
			}
		})
	}
}
