package receipt

import (
	"strings"
	"testing"
)

// twoSessions is a windowed receipt with an earlier card session (a, cos_a) and the current one
// (b, cos_b).
func twoSessions(t *testing.T) State {
	t.Helper()
	return withEvents(t, windowed(), AttemptStarted{AttemptID: "a", Kind: "onramp", SessionID: "cos_a", At: 2},
		AttemptStarted{AttemptID: "b", Kind: "onramp", SessionID: "cos_b", At: 3})
}

func decided(t *testing.T, s State, u ProcessorUpdate) (State, string) {
	t.Helper()
	evs, err := DecideProcessorUpdate(s, u)
	return apply(t, s, evs, err), types(evs)
}

// TestAnEarlierSessionUnderWayHoldsTheWindow: the customer pays the earlier session (a) in its
// own tab while the newer one (b) is left open; the processor then expires b. Before, a's
// processing report recorded nothing (not the current attempt), b's expiry failed the receipt,
// and the window expired it while a's payment was being completed. Now a's report makes it the
// current attempt again: b's expiry is ignored, the window is held, and a's success pays.
func TestAnEarlierSessionUnderWayHoldsTheWindow(t *testing.T) {
	t.Parallel()
	s, evs := decided(t, twoSessions(t), ProcessorUpdate{SessionID: "cos_a", AttemptID: "a", Status: "fulfillment_processing", At: 10})
	if evs != EventSubmitted || s.CurrentAttempt != "a" || s.Status != StatusPending || !s.OnrampOpen() {
		t.Fatalf("a under way: %s, current %s, status %s", evs, s.CurrentAttempt, s.Status)
	}
	if again, evs := decided(t, s, ProcessorUpdate{SessionID: "cos_a", AttemptID: "a", Status: "fulfillment_processing", At: 11}); evs != "" || again.CurrentAttempt != "a" {
		t.Fatalf("a's report again: %s", evs)
	}
	s, evs = decided(t, s, ProcessorUpdate{SessionID: "cos_b", AttemptID: "b", Status: "expired", At: 20})
	if evs != EventFailureIgnored || s.Status != StatusPending {
		t.Fatalf("b expired: %s, status %s", evs, s.Status)
	}
	if ex, err := Expire(s, winEnd+1, monitor); err != nil || len(ex) != 0 || s.WindowDue(winEnd+1) {
		t.Fatalf("the window expired a payment under way: %v %v", types(ex), err)
	}
	s, evs = decided(t, s, ProcessorUpdate{SessionID: "cos_a", AttemptID: "a", Status: "fulfillment_complete", SourceAmountCents: cents(1000),
		TransactionHash: "0x" + strings.Repeat("a", 64), At: winEnd + 50})
	if evs != EventConfirmed || s.Status != StatusPaid || s.Payment.AttemptID != "a" || s.Payment.PaidLate {
		t.Fatalf("a's success: %s, status %s", evs, s.Status)
	}
}

// TestAnEarlierSessionResumesWithinBounds: the newer session's failure came first (the receipt
// failed on b): a's processing report makes it pending on a; its ACH acceptance directly does
// too. Nothing else resumes: a report created at or after the window's end, a session that
// ended short, that the receipt failed on, or whose payment was rejected (a late report), an
// expired receipt, and a session resumed once already (two sessions under way do not take turns).
// A session whose checkout expired may still resume: a bank payment settles after it.
func TestAnEarlierSessionResumesWithinBounds(t *testing.T) {
	t.Parallel()
	failedOnB, _ := decided(t, twoSessions(t), ProcessorUpdate{SessionID: "cos_b", AttemptID: "b", Status: "expired", At: 5})
	if failedOnB.Status != StatusFailed || failedOnB.OnrampOpen() {
		t.Fatalf("b expired: %s", failedOnB.Status)
	}
	s, evs := decided(t, failedOnB, ProcessorUpdate{SessionID: "cos_a", AttemptID: "a", Status: "fulfillment_processing", At: 10})
	if evs != EventSubmitted || s.CurrentAttempt != "a" || s.Status != StatusPending || s.FailureView() != nil || !s.OnrampOpen() {
		t.Fatalf("a under way after b failed: %s, current %s, status %s", evs, s.CurrentAttempt, s.Status)
	}
	s, evs = decided(t, twoSessions(t), ProcessorUpdate{SessionID: "cos_a", AttemptID: "a", Status: "ach_pending", At: 10})
	if evs != EventSubmitted+","+EventACHAccepted || s.CurrentAttempt != "a" || s.Status != StatusACHPending {
		t.Fatalf("a's ACH accepted: %s, current %s, status %s", evs, s.CurrentAttempt, s.Status)
	}
	ended, _ := decided(t, twoSessions(t), ProcessorUpdate{SessionID: "cos_a", AttemptID: "a", Status: "fulfillment_complete", SourceAmountCents: cents(100),
		TransactionHash: "0x" + strings.Repeat("1", 64), At: 6})
	failedOnA := withEvents(t, windowed(), AttemptStarted{AttemptID: "a", Kind: "onramp", SessionID: "cos_a", At: 2},
		PaymentFailed{AttemptID: "a", Code: "PORTAL_PAY_CARD_DECLINED", At: 3})
	failedOnA = withEvents(t, failedOnA, AttemptStarted{AttemptID: "b", Kind: "onramp", SessionID: "cos_b", At: 4})
	// a's payment rejected while b was current (ignored), then b expired (the receipt fails on b):
	// a's processing report, delivered late, is stale.
	rejected, _ := decided(t, twoSessions(t), ProcessorUpdate{SessionID: "cos_a", AttemptID: "a", Status: "rejected", ErrorCode: "card_declined", At: 4})
	rejected, _ = decided(t, rejected, ProcessorUpdate{SessionID: "cos_b", AttemptID: "b", Status: "expired", At: 5})
	// a's checkout expired (ignored), which says nothing of a bank payment still settling: it resumes.
	if s, evs := decided(t, withEvents(t, twoSessions(t), FailureIgnored{AttemptID: "a", Code: "PORTAL_SESSION_EXPIRED", At: 4}),
		ProcessorUpdate{SessionID: "cos_a", AttemptID: "a", Status: "ach_pending", At: 10}); s.CurrentAttempt != "a" || s.Status != StatusACHPending {
		t.Fatalf("a's ACH after its checkout expired: %s, current %s, status %s", evs, s.CurrentAttempt, s.Status)
	}
	resumedOnce, _ := decided(t, twoSessions(t), ProcessorUpdate{SessionID: "cos_a", AttemptID: "a", Status: "fulfillment_processing", At: 10})
	resumedOnce, _ = decided(t, resumedOnce, ProcessorUpdate{SessionID: "cos_b", AttemptID: "b", Status: "fulfillment_processing", At: 11})
	for _, c := range []struct {
		name string
		s    State
		at   int64
	}{
		{"a report created at the window's end", twoSessions(t), winEnd},
		{"a session that ended short", ended, 10},
		{"the session the receipt failed on", failedOnA, 10},
		{"a session whose payment was rejected", rejected, 10},
		{"an expired receipt", expired(t, failedOnB), 10},
		{"a session resumed once already", resumedOnce, 12},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, evs := decided(t, c.s, ProcessorUpdate{SessionID: "cos_a", AttemptID: "a", Status: "fulfillment_processing", At: c.at})
			if strings.Contains(evs, EventSubmitted) || s.CurrentAttempt != c.s.CurrentAttempt || s.Status != c.s.Status {
				t.Fatalf("%s: current %s, status %s", evs, s.CurrentAttempt, s.Status)
			}
		})
	}
}
