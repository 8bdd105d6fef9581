package receipt

import "testing"

// TestACardRetriedAfterADeclineHoldsTheWindow: a customer whose first card session was declined
// (the receipt failed by that attempt) opens a second one; while the processor decides it the
// window does not fail the receipt. Before, the receipt stayed failed and the window expired it
// under the session, so the card success that followed was recorded as ignored: the customer was
// charged and the receipt read failed.
func TestACardRetriedAfterADeclineHoldsTheWindow(t *testing.T) {
	t.Parallel()
	first := withEvents(t, windowed(), AttemptStarted{AttemptID: "a", Kind: "onramp", SessionID: "cos_1", OpenedBy: "service", At: 2})
	evs, err := DecideProcessorUpdate(first, ProcessorUpdate{SessionID: "cos_1", AttemptID: "a", Status: "rejected", At: 3})
	declined := apply(t, first, evs, err)
	if declined.Status != StatusFailed {
		t.Fatalf("the declined session: %s", declined.Status)
	}
	retried := withEvents(t, declined, AttemptStarted{AttemptID: "b", Kind: "onramp", SessionID: "cos_2", OpenedBy: "service", At: 900})
	wallet := withEvents(t, declined, AttemptStarted{AttemptID: "w", Kind: "wallet", OpenedBy: "service", At: 900})
	for _, c := range []struct {
		name   string
		s      State
		expire bool
	}{
		{"declined, nothing open: the window fails it", declined, true},
		{"declined, then a card session: the processor decides", retried, false},
		{"declined, then a wallet attempt: the window fails it", wallet, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.s.OnrampOpen() == c.expire {
				t.Errorf("onramp open %v", c.s.OnrampOpen())
			}
			evs, err := Expire(c.s, winEnd, monitor)
			if err != nil || (len(evs) == 1) != c.expire {
				t.Fatalf("status %s: Expire = %v, %v; want expiry %v", c.s.Status, evs, err, c.expire)
			}
		})
	}
	// The retried session's success pays the receipt, after its window's end too.
	cents := int64(1000)
	evs, err = DecideProcessorUpdate(retried, ProcessorUpdate{SessionID: "cos_2", AttemptID: "b", Status: "fulfillment_complete",
		TransactionHash: "0xab", SourceAmountCents: &cents, SourceAmountUSD: "10.00", SessionOwner: "r", At: winEnd + 5})
	if paid := apply(t, retried, evs, err); paid.Status != StatusPaid {
		t.Fatalf("the retried session's success: %s (%v)", paid.Status, evs)
	}
}
