package receipt

import "slices"

// PaymentInProgress reports whether a payment of the receipt is being confirmed, so that the
// payment page hides its controls and the customer does not pay twice: an accepted bank payment
// (ach_pending), or a pending receipt whose current attempt is under way (a wallet payment
// submitted, a card or bank session open) or whose deposit address has a transfer waiting for
// its confirmations (a credit neither Confirmed nor Dropped).
//
// A pending receipt whose current attempt has ended (EndedAttempts: the short completion of an
// accepted ACH payment reopened it, PaymentIgnored.Reopened) with no transfer confirming waits
// for a payment: nothing is being confirmed, and the customer needs the controls to pay again.
// Before, every pending receipt read as in progress, and the reopened one's page said "A payment
// is being confirmed" with no way to pay until its window failed it.
func (s State) PaymentInProgress() bool {
	switch s.Status {
	case StatusACHPending:
		return true
	case StatusPending:
		ended := s.CurrentAttempt != "" && slices.Contains(s.EndedAttempts, s.CurrentAttempt)
		return !ended || s.transferConfirming()
	}
	return false
}

// transferConfirming reports whether a transfer to the deposit address was seen and is neither
// confirmed nor dropped yet.
func (s State) transferConfirming() bool {
	return slices.ContainsFunc(s.Credits, func(c Credit) bool { return !c.Confirmed && !c.Dropped })
}
