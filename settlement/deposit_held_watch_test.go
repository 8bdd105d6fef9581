package settlement_test

import (
	"testing"
	"time"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/settlement"
)

// heldOverpayment pays a receipt (10.00, confirmed) through d, then, its stream unreadable (a
// newer build's event), has the customer pay 5.00 more, which d keeps: the receipt, the store
// that hides its stream, and the time it was paid.
func heldOverpayment(t *testing.T, e *depositEnv, d *settlement.DepositDetector) (string, *newerBuildStore) {
	t.Helper()
	paid := e.receipt(1000)
	id := paid.Receipt.ReceiptID
	store := &newerBuildStore{ReceiptsAtAppend: e.store, stream: receipt.Stream(id)}
	d.Events = store
	e.step(d)
	e.mined(e.payToken(e.usdc, paid.DepositAddress(), 10_000_000))
	e.commit()
	e.step(d)
	e.want(id, receipt.StatusPaid, "10.00")

	store.hidden.Store(true)
	e.mined(e.payToken(e.usdc, paid.DepositAddress(), 5_000_000))
	if res, err := d.Step(e.ctx); err != nil || res.Unreadable == nil {
		t.Fatalf("a step with the second transfer: %+v %v, want it kept, the receipt unreadable", res, err)
	}
	return id, store
}

// confirmedTwice fails unless receipt id has both transfers credited and confirmed, once each.
func confirmedTwice(t *testing.T, e *depositEnv, id string) {
	t.Helper()
	st := e.want(id, receipt.StatusPaid, "15.00")
	if len(st.Credits) != 2 {
		t.Fatalf("credits %+v, want the two transfers once each", st.Credits)
	}
	for _, c := range st.Credits {
		if !c.Confirmed || c.Dropped {
			t.Fatalf("credit %+v not confirmed: the second transfer was recorded, never judged at its depth (credits %+v)", c, st.Credits)
		}
	}
}

// readable makes the receipt's stream readable again and runs steps of d until the kept
// transfer could be recorded and reach its depth.
func readable(t *testing.T, e *depositEnv, d *settlement.DepositDetector, store *newerBuildStore) {
	t.Helper()
	store.hidden.Store(false)
	for range 3 {
		e.commit()
		if res, err := d.Step(e.ctx); err != nil || res.Unreadable != nil {
			t.Fatalf("a step once the receipt can be read: %+v %v", res, err)
		}
		e.synced()
	}
}

// TestAHeldTransferIsFoundAfterARestartWhenItsReceiptLeftTheWatchList (stop 68): a transfer kept
// for a receipt that could not be read was found again after a restart only if its receipt was
// still watched: the restarted detector read its block again, but matched only the watch list's
// addresses, and a receipt paid more than PAYMENT_MONITOR_WINDOW before (or past its late watch,
// or refunded by the newer build) was no longer in it. The transfer was forgotten, the
// customer's second payment credited nowhere. Now the receipts with kept transfers are saved and
// watched whatever the watch list says until their transfers are recorded and confirmed.
func TestAHeldTransferIsFoundAfterARestartWhenItsReceiptLeftTheWatchList(t *testing.T) {
	t.Parallel()
	e := newDepositEnv(t)
	id, store := heldOverpayment(t, e, e.detector())

	// A day later (the receipt paid more than the 24-hour monitor window before: out of the
	// watch list), a restarted detector, the stream still unreadable.
	restarted := e.detector()
	restarted.Events, restarted.Now = store, func() time.Time { return time.Now().Add(25 * time.Hour) }
	e.commit()
	if res, err := restarted.Step(e.ctx); err != nil || res.Unreadable == nil {
		t.Fatalf("the restarted detector's first step: %+v %v, want the kept transfer found again, its receipt still unreadable", res, err)
	}
	readable(t, e, restarted, store)
	confirmedTwice(t, e, id)

	// Recorded and confirmed: no longer kept, so a detector started now reads on from its cursor.
	again := e.detector()
	again.Events, again.Now = store, restarted.Now
	e.commit()
	if res := e.step(again); res.From != res.To {
		t.Fatalf("a detector started after the kept transfer was recorded read blocks %d-%d, want the one new block", res.From, res.To)
	}
}

// TestAHeldTransferIsConfirmedWhenItsReceiptLeftTheWatchList (stop 68): without a restart, the
// kept transfer of a receipt that left the watch list meanwhile was recorded once the stream
// could be read, as seen, and never judged at its depth (only watched receipts' credits are):
// the second payment stayed unconfirmed for good. Now it is confirmed.
func TestAHeldTransferIsConfirmedWhenItsReceiptLeftTheWatchList(t *testing.T) {
	t.Parallel()
	e := newDepositEnv(t)
	clock := &testClock{at: time.Now()}
	d := e.detector()
	d.Now = clock.now
	id, store := heldOverpayment(t, e, d)
	clock.advance(25 * time.Hour)
	readable(t, e, d, store)
	confirmedTwice(t, e, id)
}

// TestAHeldTransferMovedByAReorgIsKeptWhereItIsNow (stop 68): a kept transfer that a reorg moved
// to another block (its own block replaced, the transaction mined again later) was kept where it
// was first found: the scan that read it again in its new block matched the kept one (same
// transaction and log index) and left it. Once the stream could be read, it was recorded in the
// block the chain no longer holds, then judged dropped at its depth: the customer's payment
// credited as never made. Now the kept transfer is the one the latest scan found.
func TestAHeldTransferMovedByAReorgIsKeptWhereItIsNow(t *testing.T) {
	t.Parallel()
	e := newDepositEnv(t)
	bad := e.receipt(1000)
	id := bad.Receipt.ReceiptID
	store := &newerBuildStore{ReceiptsAtAppend: e.store, stream: receipt.Stream(id)}
	d := e.detector()
	d.Events = store
	e.step(d)
	store.hidden.Store(true)
	parent, err := e.sim.HeaderByNumber(e.ctx, nil)
	e.ok(err)
	tx := e.payToken(e.usdc, bad.DepositAddress(), 10_000_000)
	e.mined(tx)
	if res := e.step(d); res.Unreadable == nil {
		t.Fatalf("the step with the transfer: %+v, want it kept", res)
	}

	// A reorg from its parent: an empty block first, the transfer mined in the one after.
	e.ok(e.b.Fork(parent.Hash()))
	e.b.Rollback()
	e.poolEmpty() // the pool drops the forked-away transactions on its own goroutine
	e.b.Rollback()
	e.ok(chain.AdjustTime(e.ctx, e.b, time.Second))
	e.ok(e.sim.SendTransaction(e.ctx, tx))
	e.mined(tx)
	if res := e.step(d); res.Unreadable == nil {
		t.Fatalf("the step after the reorg: %+v, want the transfer still kept", res)
	}
	readable(t, e, d, store)
	if st := e.want(id, receipt.StatusPaid, "10.00"); len(st.Credits) != 1 || !st.Credits[0].Confirmed {
		t.Fatalf("credits %+v, want the transfer confirmed in its new block", st.Credits)
	}
}
