package settlement_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/settlement/pgstore"
)

// appendHooked is the ledger's store that runs before once, just before the first append to
// stream: another writer's change landing between a reader's load and its append.
type appendHooked struct {
	commands.Store
	stream string
	before func()
	once   sync.Once
}

func (h *appendHooked) Append(ctx context.Context, stream string, expected eventstore.ExpectedVersion, events ...eventstore.EventData) (eventstore.AppendResult, error) {
	if stream == h.stream {
		h.once.Do(h.before)
	}
	return h.Store.Append(ctx, stream, expected, events...)
}

// Stop 64: the verifier judged a claim on the receipt as it loaded it and recorded the verdict on
// the receipt as it appended to it. A claim refused meanwhile (by another instance: its hour
// without the transaction ended as this one found it) and the hash claimed again for more was
// recorded processed for the new amount on a transfer of the old one. The verdict is now judged
// again on the state appended to: the new claim waits, and is refused at the next step with what
// the chain shows.
func TestRefundJudgedOnTheClaimItRecords(t *testing.T) {
	t.Parallel()
	e := newRefundEnv(t)
	r := e.paid(1000)
	id := r.Receipt.ReceiptID
	tx := e.send(e.customer, 5_000_000)
	e.mined(tx)
	e.commit()
	hash := strings.ToLower(tx.Hash().Hex())
	if _, err := e.claim(r, "5", hash); err != nil {
		t.Fatal(err)
	}
	v := *e.verifier
	v.Events = &appendHooked{Store: e.store, stream: commands.ReceiptStream(id), before: func() {
		_, _, err := commands.ChangeReceipt(e.ctx, e.store, id, eventstore.Metadata{}, func(st receipt.State) ([]receipt.Event, error) {
			return receipt.RefuseRefund(st, hash, "refused by another instance", e.clock.now().UnixMilli())
		})
		e.ok(err)
		_, err = e.claim(e.state(id), "10", hash)
		e.ok(err)
	}}
	if _, err := v.Step(e.ctx); err != nil {
		t.Fatal(err)
	}
	e.synced()
	if st, rec := e.refund(id, hash); st.RefundedCents != 0 || rec.State != receipt.RefundStateClaimed || rec.AmountCents != 1000 {
		t.Fatalf("a transfer of 5 USDC recorded for a claim of 10: refunded %d, %+v", st.RefundedCents, rec)
	}
	if res := e.verify(); res.Refused != 1 {
		t.Fatalf("next step %+v", res)
	}
	if st, rec := e.refund(id, hash); st.RefundedCents != 0 || rec.State != receipt.RefundStateRefused || !strings.Contains(rec.RefusedReason, "less than") {
		t.Fatalf("after the next step: refunded %d, %+v", st.RefundedCents, rec)
	}
}

// Stop 64: the verifier freed a hold whose claim was not in the receipt's history once the
// hold's claim time was a minute old. A request that holds again a row a crashed request left
// (Reserve counts holders and keeps the old time), or whose instance's clock is behind the
// verifier's, had its hold freed between its Reserve and its append: the claim it then recorded
// was never read by the verifier (it reads the table), the receipt stayed refund_requested for
// good and the hash was free for another receipt. A hold is now freed a minute after this
// verifier first found it without its claim; a crashed request's hold still is.
func TestRefundHoldTakenAgainIsNotFreedUnderItsRequest(t *testing.T) {
	t.Parallel()
	e := newRefundEnv(t)
	r := e.paid(1000)
	id := r.Receipt.ReceiptID
	claims := pgstore.NewRefundClaims(e.pool)
	tx := e.send(e.customer, 5_000_000)
	e.mined(tx)
	hash := strings.ToLower(tx.Hash().Hex())
	// A request that crashed after holding the hash, two minutes ago.
	_, err := claims.Reserve(e.ctx, hash, id, e.clock.now().Add(-2*time.Minute))
	e.ok(err)
	// The merchant sends the refund again; the verifier steps between its hold and its append.
	refunds := commands.NewRefundHandler(&appendHooked{Store: e.store, stream: commands.ReceiptStream(id), before: func() {
		_, err := e.verifier.Step(e.ctx)
		e.ok(err)
	}}, claims, e.clock.now)
	_, err = refunds.Handle(e.ctx, commands.Refund{ReceiptID: id, AmountUSD: "5", Reason: "customer asked", TransactionHash: hash, By: r.Receipt.Merchant})
	e.ok(err)
	for range 2 {
		e.commit()
		e.verify()
	}
	if st, rec := e.refund(id, hash); rec.State != receipt.RefundStateProcessed || st.RefundedCents != 500 {
		t.Fatalf("the claim recorded after its hold was taken again: %s refunded %d, %+v", st.Status, st.RefundedCents, rec)
	}
	// A hold no request records is freed a minute after the verifier first finds it.
	crashed := "0x" + strings.Repeat("5c", 32)
	_, err = claims.Reserve(e.ctx, crashed, id, e.clock.now().Add(-2*time.Minute))
	e.ok(err)
	held := func() bool { // another receipt's claim is no probe: it holds a row of its own (stop 64)
		t.Helper()
		var held bool
		e.ok(e.pool.QueryRow(e.ctx, `SELECT EXISTS (SELECT 1 FROM refund_claims WHERE transaction_hash = $1 AND receipt_id = $2)`, crashed, id).Scan(&held))
		return held
	}
	e.verify()
	if !held() {
		t.Fatal("a hold freed at its first sight")
	}
	e.clock.advance(time.Minute + time.Second)
	e.verify()
	if held() {
		t.Fatal("a crashed request's hold is kept after the grace")
	}
}
