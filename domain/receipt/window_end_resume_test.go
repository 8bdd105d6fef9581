package receipt

import (
	"testing"
	"time"
)

// TestAnEarlierSessionUnderWayAtTheWindowsEndResumes: the receipt failed on its newer session (b)
// and the earlier one (a) is being paid, its webhooks lost. A report created after the end never
// resumes a (Resumable); the payment window process's ask at the end does, within the hold, and
// the window is then held by a. Nothing resumes after the hold, for another status, a session
// ended or failed, or an expired receipt.
func TestAnEarlierSessionUnderWayAtTheWindowsEndResumes(t *testing.T) {
	t.Parallel()
	hold := 5 * time.Minute
	failedOnB, _ := decided(t, twoSessions(t), ProcessorUpdate{SessionID: "cos_b", AttemptID: "b", Status: "expired", At: 5})
	if failedOnB.Resumable("a", winEnd+1) {
		t.Fatal("a report after the end resumes a")
	}
	for _, status := range []string{"fulfillment_processing", "ach_pending"} {
		evs := ResumeAtWindowEnd(failedOnB, "a", status, winEnd+1000, hold)
		s := apply(t, failedOnB, evs, nil)
		if types(evs) != EventSubmitted || s.CurrentAttempt != "a" || s.Status != StatusPending || !s.OnrampOpen() {
			t.Fatalf("%s at the end: %s, current %s, status %s", status, types(evs), s.CurrentAttempt, s.Status)
		}
		if ex, err := Expire(s, winEnd+1000, monitor); err != nil || len(ex) != 0 {
			t.Fatalf("%s: the window expired the resumed receipt: %v %v", status, types(ex), err)
		}
		if again := ResumeAtWindowEnd(s, "a", status, winEnd+2000, hold); len(again) != 0 {
			t.Fatalf("%s: resumed twice: %s", status, types(again))
		}
	}
	expired := apply(t, failedOnB, mustExpire(t, failedOnB, winEnd+1), nil)
	ended := withEvents(t, failedOnB, PaymentIgnored{AttemptID: "a", VerifiedBy: "processor", Why: "underpaid", StatusAtArrival: StatusFailed, At: 6})
	for name, c := range map[string]struct {
		s      State
		status string
		at     int64
	}{
		"after the hold":   {failedOnB, "fulfillment_processing", winEnd + hold.Milliseconds() + 1},
		"created":          {failedOnB, "created", winEnd + 1000},
		"complete":         {failedOnB, "fulfillment_complete", winEnd + 1000},
		"the failed one":   {failedOnB, "fulfillment_processing", winEnd + 1000},
		"ended short":      {ended, "fulfillment_processing", winEnd + 1000},
		"expired receipt":  {expired, "fulfillment_processing", winEnd + 1000},
		"without a window": {withoutWindow(t), "fulfillment_processing", winEnd + 1000},
	} {
		attempt := "a"
		if name == "the failed one" {
			attempt = "b"
		}
		if evs := ResumeAtWindowEnd(c.s, attempt, c.status, c.at, hold); len(evs) != 0 {
			t.Errorf("%s: resumed: %s", name, types(evs))
		}
	}
}

func mustExpire(t *testing.T, s State, at int64) []Event {
	t.Helper()
	evs, err := Expire(s, at, monitor)
	if err != nil || len(evs) != 1 {
		t.Fatalf("expire: %v %v", types(evs), err)
	}
	return evs
}

// withoutWindow is twoSessions on a receipt without a window, failed on b.
func withoutWindow(t *testing.T) State {
	t.Helper()
	s := twoSessions(t)
	s.Receipt.ExpiresAt = 0
	s, _ = decided(t, s, ProcessorUpdate{SessionID: "cos_b", AttemptID: "b", Status: "expired", At: 5})
	return s
}
