package receipt

// A payment mined in time holds the window (stop 68): a receipt whose transfers mined at or
// before the window's end (DepositTransferSeen.BlockTime) cover it once those still waiting for
// CHAIN_CONFIRMATIONS are counted, is not expired while any of them waits. The customer paid in
// time: expired, the merchant was told failed, then paid (paidLate) once the depth came. The
// hold ends when the transfers are confirmed (then they pay the receipt), when a reorg takes one
// back (Dropped: expired as usual if the rest does not cover it; seen again in a later block,
// that block's time decides), and at the latest at the end of the late-payment watch
// (ExpiresAt + PAYMENT_MONITOR_WINDOW), so a transfer the detector never resolves cannot keep a
// receipt open for ever (confirmed later, it still pays late: its block's time is within the
// watch). Transfers that could not pay the receipt in time hold nothing: a receipt underpaid at
// its end is failed within seconds, as DESIGN 9 says, not once its short transfer is confirmed.
// A transfer mined after the end never counts toward the hold; one whose block time is unknown
// (an older event, a node that gave none) holds nothing, though confirmed it counts as before.
//
// A wallet payment (a hint) holds the window through the same transfer once the deposit
// detector has seen it; an onramp session already holds it (OnrampOpen).

// paymentPendingInTime says whether transfers mined at or before the window's end, some still
// waiting for their confirmations, cover the receipt when counted.
func (s State) paymentPendingInTime() bool {
	end, waiting := s.Receipt.ExpiresAt, false
	inTime := make([]Credit, len(s.Credits))
	for i, c := range s.Credits {
		switch {
		case c.BlockTime > end:
			c.Confirmed = false // mined after the end: it did not pay in time
		case !c.Confirmed && !c.Dropped && c.BlockTime > 0:
			c.Confirmed, waiting = true, true
		}
		inTime[i] = c
	}
	if !waiting {
		return false
	}
	s.Credits = inTime
	return s.Covered()
}

// windowHeld says whether a payment mined in time holds the ended window open at `at` (Unix ms),
// the late-payment watch (ExpiresAt + monitor) not yet over.
func (s State) windowHeld(at int64, monitorMs int64) bool {
	return at <= s.Receipt.ExpiresAt+monitorMs && s.paymentPendingInTime()
}
