package receipt

import "testing"

// A processor may report a session's success first without the transaction hash (the delivery
// not yet on chain; the reconciler's read of the session) and then with it (a later event of the
// same session). When that success pays nothing (underpaid, a second payment of a paid receipt,
// after the window), the hashless report was recorded as PaymentIgnored once per attempt and the
// later one, keyed by its hash, was recorded again: one card payment read as two to refund. A
// session's success is recorded once, whichever report carries the hash.
func TestProcessorSuccessIgnoredOnceWhenItsHashComesLater(t *testing.T) {
	t.Parallel()
	opened := func(s State, attempt, session string) State {
		return withEvents(t, s, AttemptStarted{AttemptID: attempt, Kind: "onramp", SessionID: session, OpenedBy: "service", At: 2})
	}
	paid := opened(windowed(), "a", "cos_1")
	paid = withEvents(t, paid, PaymentConfirmed{AttemptID: "a", TransactionHash: "0xa1", VerifiedBy: "processor", At: 3})
	paid = withEvents(t, paid, AttemptStarted{AttemptID: "b", Kind: "onramp", SessionID: "cos_2", OpenedBy: "processor", At: 4})
	late := opened(windowed(), "b", "cos_2")
	late = Evolve(late, PaymentFailed{AttemptID: "b", Code: "PORTAL_PAY_CARD_DECLINED", At: 5})
	late = expired(t, late)
	for _, c := range []struct {
		name   string
		s      State
		amount int64
	}{
		{"underpaid", opened(windowed(), "b", "cos_2"), 500},
		{"a second payment of a paid receipt", paid, 1000},
		{"after the window", late, 1000},
	} {
		t.Run(c.name, func(t *testing.T) {
			u := ProcessorUpdate{SessionID: "cos_2", AttemptID: "b", Status: "fulfillment_complete", SourceAmountCents: cents(c.amount), SessionOwner: "r", At: 9}
			evs, err := DecideProcessorUpdate(c.s, u)
			if types(evs) != EventPaymentIgnored {
				t.Fatalf("the hashless report: %s (%v), want it recorded", types(evs), err)
			}
			s := apply(t, c.s, evs, err)
			u.TransactionHash = "0x" + "b2"
			if again, err := DecideProcessorUpdate(s, u); err != nil || len(again) != 0 {
				t.Fatalf("the same success with its hash: %s (%v), want nothing recorded again", types(again), err)
			}
		})
	}
}
