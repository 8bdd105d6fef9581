package receipt

import "slices"

// A receipt left ach_pending by a short ACH completion recorded before stop 69 is reopened by
// the service (stop 70). Since stop 69 the short completion of the receipt's accepted ACH payment
// is recorded as PaymentIgnored with Reopened, and the receipt is pending again (achShort). One
// recorded before has no Reopened: it ended the attempt (EndedAttempts) and left the receipt
// ach_pending, which no event leaves but that attempt's success or return. Its success is
// recorded already (processorIgnoredAlready), so no report of the processor changes it again:
// the window never expires it, a new payment is refused, and the reconciliation leaves it off
// its list. The runbook had the operator settle such receipts by hand.
//
// Now the payment window process finds them (an ach_pending receipt whose current attempt is in
// EndedAttempts: ACHStuck) and records the reopening the short completion would record today: a
// PaymentIgnored of that attempt with Reopened and no payment of its own (no transaction hash, no
// amount: the short payment is the earlier event's, and is counted once), which makes the receipt
// pending. The window then decides it as any reopened receipt: failed at once when its window has
// ended (as it usually has for a bank payment), else a new payment may pay it.

// ACHStuck reports whether the receipt is ach_pending on an attempt whose success is recorded as
// paying nothing (EndedAttempts): the short completion of its ACH payment, recorded without
// Reopened. Since stop 69 such a completion reopens the receipt, so no receipt becomes so again.
func (s State) ACHStuck() bool {
	return s.Exists && s.Status == StatusACHPending && s.CurrentAttempt != "" && slices.Contains(s.EndedAttempts, s.CurrentAttempt)
}

// ReopenStuckACH decides the reopening of a receipt ACHStuck at `at` (Unix ms): a PaymentIgnored
// of its current attempt with Reopened, which makes it pending. None for any other receipt.
func ReopenStuckACH(s State, at int64) []Event {
	if !s.ACHStuck() {
		return nil
	}
	return []Event{PaymentIgnored{AttemptID: s.CurrentAttempt, VerifiedBy: verifiedByProcessor, Reopened: true, StatusAtArrival: s.Status, At: at,
		Why: "reopened: the ACH payment's short completion, recorded above before stop 69, left the receipt ach_pending; " +
			"the bank payment is over and paid nothing, so the receipt is pending (this records no payment of its own)"}}
}
