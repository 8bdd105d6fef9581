package receipt

import "testing"

// An onramp session whose success paid less than is due is over: the processor has nothing more
// to decide, so it no longer holds the payment window open. Before, its attempt stayed the
// receipt's open onramp attempt, and the receipt stayed pending for good (never paid, never
// expired, no webhook), with the customer's 9.99 USD of 10.00 at the split.
func TestUnderpaidOnrampSessionDoesNotHoldTheWindowOpen(t *testing.T) {
	t.Parallel()
	started := withEvents(t, windowed(), AttemptStarted{AttemptID: "a", Kind: "onramp", SessionID: "cos_1", OpenedBy: "service", At: 2})
	processing := withEvents(t, started, PaymentSubmitted{AttemptID: "a", Source: "processor", At: 3})
	success := func(cents int64, exact string) ProcessorUpdate {
		return ProcessorUpdate{SessionID: "cos_1", AttemptID: "a", Status: "fulfillment_complete", TransactionHash: "0xab",
			SourceAmountCents: &cents, SourceAmountUSD: exact, SessionOwner: "r", At: 9}
	}
	decide := func(s State, u ProcessorUpdate) State {
		t.Helper()
		evs, err := DecideProcessorUpdate(s, u)
		return apply(t, s, evs, err)
	}
	underpaid := decide(processing, success(999, "9.99"))
	retried := withEvents(t, underpaid, AttemptStarted{AttemptID: "b", Kind: "onramp", SessionID: "cos_2", OpenedBy: "service", At: 10})
	for _, c := range []struct {
		name   string
		s      State
		expire bool
	}{
		{"processing: the processor decides", processing, false},
		{"paid in full: nothing to expire", decide(processing, success(1000, "10.00")), false},
		{"underpaid: the session is over, the window fails the receipt", underpaid, true},
		{"underpaid, not yet processing: the same", decide(started, success(999, "9.99")), true},
		{"underpaid, then a new session: that one is open", retried, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			evs, err := Expire(c.s, winEnd, monitor)
			if err != nil || (len(evs) == 1) != c.expire {
				t.Fatalf("status %s: Expire = %v, %v; want expiry %v", c.s.Status, evs, err, c.expire)
			}
		})
	}
	if underpaid.Status != StatusPending || underpaid.OnrampOpen() {
		t.Fatalf("underpaid: status %s, onramp open %v", underpaid.Status, underpaid.OnrampOpen())
	}
}
