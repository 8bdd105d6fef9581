package receipt

import "testing"

// TestAnACHReturnFailsTheReceipt: the processor rejects an accepted ACH payment days after its
// acceptance (an ACH return). That failure is not stale: the receipt fails with the processor's
// failure and its code, so the merchant's webhook says so. Before, it was recorded as ignored and
// the receipt read "Bank payment pending" for good. A rejection not known to be later than the
// acceptance (same second, or before), of another attempt, or an expired or cancelled report
// (which can describe the checkout session, not the payment), still changes nothing.
func TestAnACHReturnFailsTheReceipt(t *testing.T) {
	t.Parallel()
	session := Evolve(generated(), AttemptStarted{AttemptID: "a", Kind: "onramp", SessionID: "cos_1", At: 2})
	accepted := Evolve(session, ACHAccepted{AttemptID: "a", At: 5_000})
	if accepted.Status != StatusACHPending {
		t.Fatalf("accepted: %s", accepted.Status)
	}
	day := int64(86_400_000)
	evs, err := DecideProcessorUpdate(accepted, ProcessorUpdate{SessionID: "cos_1", AttemptID: "a", Status: "rejected",
		ErrorCode: "insufficient_funds", RequestID: "req_r01", At: 5_000 + 3*day})
	returned := apply(t, accepted, evs, err)
	if types(evs) != EventFailed || returned.Status != StatusFailed || returned.PreviousStatus != StatusACHPending {
		t.Fatalf("the return: %s, status %s (from %s)", types(evs), returned.Status, returned.PreviousStatus)
	}
	if f := returned.FailureView(); f == nil || f.Code != "PORTAL_PAY_INSUFFICIENT_FUNDS" || f.AttemptID != "a" ||
		f.ProviderErrorCode != "insufficient_funds" || f.ProviderRequestID != "req_r01" {
		t.Fatalf("failure %+v", f)
	}
	if again, err := DecideProcessorUpdate(returned, ProcessorUpdate{SessionID: "cos_1", AttemptID: "a", Status: "rejected", At: 5_000 + 4*day}); err != nil || len(again) != 0 {
		t.Fatalf("the return again: %v %v", again, err)
	}
	for _, c := range []struct {
		name string
		u    ProcessorUpdate
	}{
		{"a rejection in the acceptance's second", ProcessorUpdate{SessionID: "cos_1", AttemptID: "a", Status: "rejected", At: 5_000}},
		{"a rejection created before the acceptance", ProcessorUpdate{SessionID: "cos_1", AttemptID: "a", Status: "rejected", At: 4_000}},
		{"a rejection of another attempt", ProcessorUpdate{SessionID: "cos_0", AttemptID: "z", Status: "rejected", At: 5_000 + day}},
		{"an expired session", ProcessorUpdate{SessionID: "cos_1", AttemptID: "a", Status: "expired", At: 5_000 + day}},
		{"a cancelled session", ProcessorUpdate{SessionID: "cos_1", AttemptID: "a", Status: "cancelled", At: 5_000 + day}},
	} {
		t.Run(c.name, func(t *testing.T) {
			evs, err := DecideProcessorUpdate(accepted, c.u)
			if s := apply(t, accepted, evs, err); types(evs) != EventFailureIgnored || s.Status != StatusACHPending {
				t.Fatalf("%s: status %s", types(evs), s.Status)
			}
		})
	}
}
