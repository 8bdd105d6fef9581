package settlement_test

import (
	"errors"
	"testing"
	"time"

	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/settlement"
	"github.com/payledger/payledger/settlement/pgstore"
)

// TestFundsRefundedThenPaidLateRefundedInFull (stop 69), on the simulated chain with the deposit
// detector, the payment window and the refund verifier: the customer sends 4 of a 10.00 receipt,
// the window fails it, the merchant sends the 4 back (a claim of the funds, proven); the customer
// then pays the 10 late, which pays the receipt. The merchant refunds the whole 10 (before: only
// 6 more were taken, so a customer who sent 14 got 10 back), and a cent more is refused.
func TestFundsRefundedThenPaidLateRefundedInFull(t *testing.T) {
	e := newRefundEnv(t)
	d := e.detector()
	d.Now = e.clock.now
	window := settlement.NewPaymentWindowHandler(e.store, pgstore.NewReceipts(e.pool),
		settlement.PaymentWindowConfig{Window: time.Hour, Monitor: 24 * time.Hour}, e.clock.now)
	id := e.windowedReceipt(1000, e.clock.now(), e.clock.now().Add(time.Hour))
	e.step(d)
	deposit := e.state(id).DepositAddress()
	start := e.usdcOf(e.customer)
	e.mined(e.payToken(e.usdc, deposit, 4_000_000))
	e.commit()
	e.step(d)
	e.want(id, receipt.StatusPending, "4.00")
	e.clock.advance(time.Hour)
	e.synced()
	if got, err := window.Handle(e.ctx); err != nil || len(got) != 1 {
		t.Fatalf("expired %v (%v)", got, err)
	}
	e.synced()

	back := e.send(e.customer, 4_000_000)
	e.mined(back)
	if _, err := e.claim(e.want(id, receipt.StatusFailed, "4.00"), "", back.Hash().Hex()); err != nil {
		t.Fatal(err)
	}
	e.processedAtDepth(t)
	if st, rec := e.refund(id, back.Hash().Hex()); st.Status != receipt.StatusFailed || rec.State != receipt.RefundStateProcessed || !rec.OfFunds {
		t.Fatalf("the funds' refund: %s %+v", st.Status, rec)
	}

	e.clock.advance(time.Hour) // within the monitor window
	e.chainAt(e.clock.now())
	e.mined(e.payToken(e.usdc, deposit, 10_000_000))
	e.commit()
	e.step(d)
	st := e.want(id, receipt.StatusPaid, "14.00")
	if !st.PaidLate() || st.RefundableCents() != 1000 || st.OrderRefundedCents() != 0 || st.RefundedBeforePaymentCents() != 400 {
		t.Fatalf("paid late: paidLate %v refundable %d order refunded %d before payment %d",
			st.PaidLate(), st.RefundableCents(), st.OrderRefundedCents(), st.RefundedBeforePaymentCents())
	}

	whole := e.send(e.customer, 10_000_000)
	e.mined(whole)
	if _, err := e.claim(st, "10.00", whole.Hash().Hex()); err != nil {
		t.Fatalf("the order's whole 10.00 after the 4 returned: %v", err)
	}
	e.processedAtDepth(t)
	st, rec := e.refund(id, whole.Hash().Hex())
	if st.Status != receipt.StatusRefunded || rec.State != receipt.RefundStateProcessed || st.OrderRefundedCents() != 1000 ||
		st.RefundedCents != 1400 || st.RefundableCents() != 0 {
		t.Fatalf("the order refunded: %s %+v order %d all %d refundable %d", st.Status, rec, st.OrderRefundedCents(), st.RefundedCents, st.RefundableCents())
	}
	if got := e.usdcOf(e.customer); got.Cmp(start) != 0 {
		t.Fatalf("the customer holds %s USDC base units, want %s: every unit sent back", got, start)
	}

	more := e.send(e.customer, 10_000)
	e.mined(more)
	if _, err := e.claim(st, "0.01", more.Hash().Hex()); !errors.Is(err, receipt.ErrState) {
		t.Fatalf("a cent more than the customer sent: %v", err)
	}
}
