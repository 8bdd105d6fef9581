package receipt

// A transfer mined in time holds the window (stop 68): a receipt holding a transfer seen in a
// block whose time (DepositTransferSeen.BlockTime) is at or before the window's end, not yet
// CHAIN_CONFIRMATIONS deep and not dropped, is not expired while that transfer waits for its
// confirmations. The customer paid in time: expired first, the merchant was told failed, then
// paid (paidLate) once the depth came. The hold ends when the transfer is confirmed (then it pays
// the receipt, or, too small, the window expires it as usual), when a reorg takes its block back
// (Dropped: expired as usual; seen again in a later block, that block's time decides), and at the
// latest at the end of the late-payment watch (ExpiresAt + PAYMENT_MONITOR_WINDOW), so a
// transfer the detector never resolves cannot keep a receipt open for ever (confirmed later, it
// still pays late: its block's time is within the watch). A transfer whose block time is unknown
// (an older event, a node that gave none) holds nothing: nothing shows it was in time.
//
// A wallet payment (a hint) holds the window through the same transfer once the deposit
// detector has seen it; an onramp session already holds it (OnrampOpen).

// transferPendingInTime says whether a transfer mined at or before the window's end is seen and
// still waiting for its confirmations.
func (s State) transferPendingInTime() bool {
	end := s.Receipt.ExpiresAt
	for _, c := range s.Credits {
		if !c.Confirmed && !c.Dropped && c.BlockTime > 0 && c.BlockTime <= end {
			return true
		}
	}
	return false
}

// windowHeld says whether a transfer in time holds the ended window open at `at` (Unix ms), the
// late-payment watch (ExpiresAt + monitor) not yet over.
func (s State) windowHeld(at int64, monitorMs int64) bool {
	return at <= s.Receipt.ExpiresAt+monitorMs && s.transferPendingInTime()
}
