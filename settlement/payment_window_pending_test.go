package settlement_test

import (
	"testing"
	"time"

	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/settlement"
	"github.com/payledger/payledger/settlement/pgstore"
)

// TestPaymentWindowWaitsForATransferMinedInTime, on the simulated chain with the deposit
// detector: a receipt paid in full by a transfer mined before its window's end, still short of
// its confirmations when the window ends, is not expired; once confirmed it is paid in time (no
// PaymentWindowExpired, paidLate false, no failed webhook). A second one, whose transfer mined in
// time a reorg takes back before the depth, is expired by the window as usual.
func TestPaymentWindowWaitsForATransferMinedInTime(t *testing.T) {
	t.Parallel()
	e := newDepositEnv(t)
	clock := &testClock{at: time.Now()}
	d := e.detector()
	d.Now = clock.now
	window := settlement.NewPaymentWindowHandler(e.store, pgstore.NewReceipts(e.pool),
		settlement.PaymentWindowConfig{Window: time.Hour, Monitor: 24 * time.Hour}, clock.now)
	expire := func(want int) {
		t.Helper()
		e.synced()
		if got, err := window.Handle(e.ctx); err != nil || len(got) != want {
			t.Fatalf("expired %v (%v), want %d", got, err, want)
		}
		e.synced()
	}

	paid := e.windowedReceipt(1000, clock.now(), clock.now().Add(time.Hour))
	e.step(d)
	e.mined(e.payToken(e.usdc, e.state(paid).DepositAddress(), 10_000_000)) // the chain's time: before the end
	e.step(d)
	e.want(paid, receipt.StatusPending, "0.00")
	clock.advance(time.Hour + time.Minute)
	expire(0)
	e.want(paid, receipt.StatusPending, "0.00")
	e.commit()
	e.step(d)
	if st := e.want(paid, receipt.StatusPaid, "10.00"); st.PaidLate() || st.Expired() || e.count(paid, receipt.EventWindowExpired) != 0 {
		t.Fatalf("paid in time: paidLate %v, expired %v", st.PaidLate(), st.Expired())
	}
	if w := e.webhooks(paid); w != "pending,paid" && w != "paid" {
		t.Fatalf("webhooks of the receipt paid in time: %s", w)
	}

	taken := e.windowedReceipt(1000, clock.now(), clock.now().Add(time.Hour))
	e.step(d)
	parent, err := e.sim.HeaderByNumber(e.ctx, nil)
	e.ok(err)
	e.mined(e.payToken(e.usdc, e.state(taken).DepositAddress(), 10_000_000))
	e.step(d)
	clock.advance(time.Hour + time.Minute)
	expire(0) // held while it waits
	e.ok(e.b.Fork(parent.Hash()))
	e.b.Rollback()
	e.poolEmpty() // the pool drops the forked-away transactions on its own goroutine
	e.b.Rollback()
	for range 3 {
		e.commit()
	}
	e.step(d)
	e.commit()
	e.step(d)
	if st := e.state(taken); len(st.Credits) != 1 || !st.Credits[0].Dropped {
		t.Fatalf("after the reorg: credits %+v", st.Credits)
	}
	expire(1)
	st := e.want(taken, receipt.StatusFailed, "0.00")
	if f := st.FailureView(); f == nil || f.Code != receipt.CodeWindowExpired {
		t.Fatalf("failure %+v", f)
	}
}
