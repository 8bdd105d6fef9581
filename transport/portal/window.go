package portal

import (
	"time"

	"github.com/payledger/payledger/domain/receipt"
)

// What the payment page says once a receipt's payment window has ended unpaid (DESIGN 9). The
// quote, the payment request and the card/bank start all refuse such a receipt, so the page
// shows no payment controls then (they would be dead: no address, no amount, a refused button),
// and says what is true of a late payment instead: funds confirmed at the deposit address until
// monitorUntil still pay it (late) once they cover it; later ones do not; a receipt without a
// deposit address cannot be paid any more at all.

// windowEnded reports whether the page treats st's payment window as over at now (Unix ms): the
// expiry is recorded, or its end has passed and the window process has not recorded it yet (it
// does within seconds), for a receipt not settled and not an accepted ACH payment.
func windowEnded(st receipt.State, now int64) bool {
	end := st.Receipt.ExpiresAt
	if end == 0 || st.Status.Settled() || st.Status == receipt.StatusACHPending {
		return false
	}
	return st.Expired() || now >= end
}

// windowNote is the page's sentence about the ended window of st at now ("" while it is open):
// when it ended, that no payment can be started, and what becomes of funds sent to the deposit
// address (late payment until monitorUntil, nothing after).
func windowNote(st receipt.State, now int64) string {
	if !windowEnded(st, now) {
		return ""
	}
	ended := "The payment window ended at " + pageTime(st.Receipt.ExpiresAt) + ", so no new payment can be started on this page."
	switch {
	case st.OnrampOpen():
		return ended + " The card or bank payment already started is still being decided by the processor; this page updates by itself."
	case st.Receipt.DepositAddress == "":
		return ended + " To pay, ask the merchant for a new receipt."
	case !st.Expired():
		return ended + " Funds already sent to this receipt's address still count if they are confirmed within the late-payment watch that follows the window; to pay now, ask the merchant for a new receipt."
	case now > st.MonitorUntil:
		return ended + " Funds sent to this receipt's address now do not pay it; to pay, ask the merchant for a new receipt."
	}
	return ended + " Funds already sent to this receipt's address still count if they are confirmed by " + pageTime(st.MonitorUntil) +
		": once what has arrived covers the receipt, it is paid (late). To pay now, ask the merchant for a new receipt."
}

// pageTime is a time as the page writes it: UTC to the minute.
func pageTime(ms int64) string { return time.UnixMilli(ms).UTC().Format("2006-01-02 15:04 UTC") }
