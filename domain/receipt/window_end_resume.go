package receipt

import "time"

// An earlier session's payment under way at the window's end (stop 71). The processor's session
// API says what a session's status is, not since when: a payment begun in an earlier session in
// the last reconciliation interval before the window's end, its webhooks lost, was found under way
// only by a pass after the end, too late to resume it (Resumable: a report created before the
// end), and the window expired the receipt; the payment's success was then recorded as ignored.
// The payment window process now asks the processor about such sessions when it decides the end
// (commands.ReconcileOnrampHandler.AskAtWindowEnd): a payment it finds under way then is taken as
// under way at the end. Bounded: only an ask within hold after the end (the window process holds
// the expiry that long at most while the processor does not answer), and only a session that
// Resumable would have resumed just before the end.

// ResumeAtWindowEnd is the event that makes attempt the current one again when the processor,
// asked by the payment window process at `at` (Unix ms, at or after the window's end, within
// hold of it), reports its payment under way (status fulfillment_processing or ach_pending):
// PaymentSubmitted of the attempt, source processor, as resumeEarlier records. None for a
// receipt without a window, an ask after hold, another status, or an attempt not Resumable just
// before the end (not an earlier onramp session of the receipt, ended, failed, resumed once
// already, or the receipt expired, paid or beyond).
func ResumeAtWindowEnd(s State, attempt, status string, at int64, hold time.Duration) []Event {
	end := s.Receipt.ExpiresAt
	if status != "fulfillment_processing" && status != "ach_pending" || end == 0 || at > end+hold.Milliseconds() {
		return nil
	}
	if !s.Resumable(attempt, end-1) {
		return nil
	}
	return []Event{PaymentSubmitted{AttemptID: attempt, Source: verifiedByProcessor, At: at}}
}
