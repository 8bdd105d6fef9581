package receipt

import (
	"slices"

	"github.com/payledger/payledger/domain/failure"
)

// An earlier session's payment under way holds the window (stop 69). A customer who left a card
// checkout and started another may still pay the first one in its own tab. Its processing (or
// ACH acceptance) report was not the current attempt's, so it recorded nothing: when the
// processor then expired the newer, unused session, the receipt failed on it, its window was no
// longer held (OnrampOpen is the current attempt's), and the window expired it while the first
// payment was being completed; that payment's success then paid it late from failed, or, after
// the window's expiry, was recorded as ignored: the customer paid and the receipt read failed.
//
// Now such a report makes its session the current attempt again (PaymentSubmitted of that
// attempt, source processor; the receipt pending): the payment under way is the one the receipt
// waits for. It holds the window as any open session does (OnrampOpen), the newer session's
// failure is then another attempt's (recorded as ignored), and the reconciliation asks the
// processor about it as the current one. Bounded: only a known onramp session of this receipt
// (a session the service started for another receipt is decided before, decideForeignSession)
// that has not ended (EndedAttempts), that the receipt did not fail on, and whose payment's
// failure was not reported (FailedAttempts: a processing report delivered after the payment's
// rejection is stale); only while the receipt
// is generated, pending or failed, not expired; only a report created before the window's end (a
// payment begun after it never holds it); and each session once (ResumedAttempts), so two
// sessions under way never take turns on every report or reconciliation pass.

// Resumable reports whether the processor's report, created at `at` (Unix ms), that the payment
// of the receipt's onramp attempt is under way (processing or ACH accepted) makes that attempt
// the current one again.
func (s State) Resumable(attempt string, at int64) bool {
	a, ok := s.Attempts[attempt]
	if !s.Exists || !ok || attempt == s.CurrentAttempt || a.Kind != "onramp" || a.SessionID == "" {
		return false
	}
	if slices.Contains(s.EndedAttempts, attempt) || slices.Contains(s.ResumedAttempts, attempt) ||
		slices.Contains(s.FailedAttempts, attempt) || s.failedOn(attempt) {
		return false
	}
	if end := s.Receipt.ExpiresAt; s.Expired() || end != 0 && at >= end {
		return false
	}
	return slices.Contains(open, s.Status)
}

// resumeEarlier is the event that makes attempt, an earlier session whose payment the processor
// reports under way, the current one again (none when it is not Resumable).
func resumeEarlier(s State, u ProcessorUpdate, attempt string) []Event {
	if (u.Status != "fulfillment_processing" && u.Status != "ach_pending") || !s.Resumable(attempt, u.At) {
		return nil
	}
	return []Event{PaymentSubmitted{AttemptID: attempt, Source: verifiedByProcessor, At: u.At}}
}

// resumed applies a processor's submission of an attempt other than the current one (Evolve's
// case, after evolvePayment): it is the current attempt again. Submit records one only for the
// current attempt, so events recorded before stop 69 replay unchanged.
func (s *State) resumed(e PaymentSubmitted) {
	a, ok := s.Attempts[e.AttemptID]
	if e.Source != verifiedByProcessor || e.AttemptID == s.CurrentAttempt || !ok || a.Kind != "onramp" {
		return
	}
	s.CurrentAttempt = e.AttemptID
	s.ResumedAttempts = append(slices.Clip(s.ResumedAttempts), e.AttemptID)
}

// attemptFailed remembers that a failure (code) of an onramp attempt was reported, applied or
// ignored (Evolve's cases): the payment is decided, and a progress report of it delivered late
// never resumes it. A failure of the session category (expired, cancelled, abandoned) is not
// counted: it can describe the checkout, which ends while a bank payment is still settling (as
// achReturned says).
func (s *State) attemptFailed(attempt, code string) {
	a, ok := s.Attempts[attempt]
	if !ok || a.Kind != "onramp" || slices.Contains(s.FailedAttempts, attempt) {
		return
	}
	if c, known := failure.Lookup(code); known && c.Category == failure.Session {
		return
	}
	s.FailedAttempts = append(slices.Clip(s.FailedAttempts), attempt)
}
