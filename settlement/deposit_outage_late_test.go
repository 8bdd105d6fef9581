package settlement_test

import (
	"testing"
	"time"

	"github.com/payledger/payledger/domain/receipt"
)

// TestPaymentMinedInTheWatchPaysAfterAnOutage: a customer pays an expired receipt within its
// late-payment watch, and the service sees the transfer only after the watch ended (it was down,
// or the detector stalled). The paying block's time is within the watch, so the receipt is paid
// late; judged by when the service saw it, it stayed failed with the customer's money recorded as
// ignored, to be refunded.
func TestPaymentMinedInTheWatchPaysAfterAnOutage(t *testing.T) {
	t.Parallel()
	e := newDepositEnv(t)
	d := e.detector()
	clock, id := e.expiredReceipt(d)
	clock.advance(2 * time.Hour) // within the watch: the customer pays
	e.chainAt(clock.now())
	e.mined(e.payToken(e.usdc, e.state(id).DepositAddress(), 10_000_000))
	e.commit()
	clock.advance(30 * time.Hour) // the service sees it only now, past expiry + PAYMENT_MONITOR_WINDOW
	e.step(d)
	st := e.want(id, receipt.StatusPaid, "10.00")
	if !st.PaidLate() || st.Payment.VerifiedBy != receipt.VerifiedByChain || len(st.IgnoredPayments) != 0 {
		t.Fatalf("paid late %v, payment %+v, ignored %v", st.PaidLate(), st.Payment, st.IgnoredPayments)
	}
}
