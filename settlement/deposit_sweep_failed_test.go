package settlement_test

import (
	"testing"
	"time"

	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/settlement"
	"github.com/payledger/payledger/settlement/pgstore"
)

// TestDepositSweepOfAFailedReceipt (stop 69): a 10.00 receipt paid 4 USDC at its deposit is
// failed by its window (underpaid). The merchant refunds such funds from its own wallet (the
// deposit can only ever send to the split), so the 4 USDC are swept to the split, the receipt
// staying failed with what it received: before, a failed receipt was never on the sweeper's work
// list, and the merchant paid the refund while the funds waited at the deposit for someone to
// flush them by hand. The customer then completes the payment within the monitor window: paid
// late, the rest swept too, the deposit empty, and an idle pass sends nothing.
func TestDepositSweepOfAFailedReceipt(t *testing.T) {
	t.Parallel()
	e := newDepositEnv(t)
	d := e.detector()
	clock := &testClock{at: time.Now()}
	d.Now = clock.now
	window := settlement.NewPaymentWindowHandler(e.store, pgstore.NewReceipts(e.pool),
		settlement.PaymentWindowConfig{Window: time.Hour, Monitor: 24 * time.Hour}, clock.now)
	id := e.windowedReceipt(1000, clock.now(), clock.now().Add(time.Hour))
	deposit := e.state(id).DepositAddress()
	e.step(d)
	e.mined(e.payToken(e.usdc, deposit, 4_000_000))
	e.commit()
	e.step(d)
	e.want(id, receipt.StatusPending, "4.00")

	clock.advance(time.Hour)
	e.synced()
	if got, err := window.Handle(e.ctx); err != nil || len(got) != 1 {
		t.Fatalf("expired %v (%v)", got, err)
	}
	e.synced()
	st := e.want(id, receipt.StatusFailed, "4.00")

	s, h := e.sweeping()
	if _, ok := e.sweptOut(s, h, st, 8); !ok {
		t.Fatalf("the failed receipt's funds not swept: sweeps %+v, the deposit holds %d", e.state(id).Sweeps, e.depositHolds(s, deposit))
	}
	if got := sweptUSDC(t, e.state(id)); got.Int64() != 4_000_000 {
		t.Fatalf("swept %s, want 4000000", got)
	}
	if got := e.depositHolds(s, e.split.Hex()); got != 4_000_000 {
		t.Fatalf("the split holds %d, want 4000000", got)
	}
	st = e.want(id, receipt.StatusFailed, "4.00")
	if !receipt.CanClaimRefund(st) || st.RefundableCents() != 400 {
		t.Fatalf("the swept funds are no longer refundable: %d", st.RefundableCents())
	}

	// The rest, paid within the monitor window: paid late, and swept like any payment.
	e.chainAt(clock.now())
	e.mined(e.payToken(e.usdc, deposit, 6_000_000))
	e.commit()
	e.step(d)
	if st = e.want(id, receipt.StatusPaid, "10.00"); !st.PaidLate() || st.Swept() {
		t.Fatalf("the rest: paid late %v, swept %v", st.PaidLate(), st.Swept())
	}
	if _, ok := e.sweptOut(s, h, st, 8); !ok {
		t.Fatalf("the rest not swept: the deposit holds %d", e.depositHolds(s, deposit))
	}
	if got := e.depositHolds(s, e.split.Hex()); got != 10_000_000 || len(e.state(id).Sweeps) != 2 {
		t.Fatalf("the split holds %d after %d sweeps, want 10000000 after 2", got, len(e.state(id).Sweeps))
	}
	e.commit()
	if out, err := h.Handle(e.ctx); err != nil || out.Sent != 0 {
		t.Fatalf("an idle pass: %+v %v", out, err)
	}
}
