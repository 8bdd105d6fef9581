package settlement_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/settlement"
	"github.com/payledger/payledger/settlement/pgstore"
)

// TestLatePaymentRefundedOnChain (issue 41 item 3): a payment to an expired receipt's deposit
// after its late-payment watch is seen by the detector (the late watch), recorded as
// PaymentIgnored with the sender, token, base units and block the chain showed, and pays
// nothing; a made-up hash never refunds it, and the merchant's real transfer back to the sender
// does, once, at depth.
func TestLatePaymentRefundedOnChain(t *testing.T) {
	e := newRefundEnv(t)
	d := e.detector()
	d.Now = e.clock.now
	window := settlement.NewPaymentWindowHandler(e.store, pgstore.NewReceipts(e.pool),
		settlement.PaymentWindowConfig{Window: time.Hour, Monitor: 24 * time.Hour}, e.clock.now)
	id := e.windowedReceipt(1000, e.clock.now(), e.clock.now().Add(time.Hour))
	e.step(d)
	e.clock.advance(time.Hour)
	e.synced()
	if got, err := window.Handle(e.ctx); err != nil || len(got) != 1 {
		t.Fatalf("expired %v (%v)", got, err)
	}
	e.clock.advance(25 * time.Hour) // past expiry + PAYMENT_MONITOR_WINDOW, within the late watch
	e.chainAt(e.clock.now())        // the payment's block is mined then too
	pay := e.payToken(e.usdc, e.state(id).DepositAddress(), 10_000_000)
	e.mined(pay)
	e.step(d)
	e.commit()
	e.step(d)
	st := e.want(id, receipt.StatusFailed, "10.00")
	ig := e.ignored(id)
	if st.Payment != nil || ig.Sender != e.customer || ig.Token != "USDC" || ig.AmountUnits != "10000000" || ig.Decimals != 6 ||
		!strings.EqualFold(ig.TransactionHash, pay.Hash().Hex()) || ig.BlockNumber == 0 || ig.LogIndex == nil {
		t.Fatalf("the late payment: payment %+v, ignored %+v", st.Payment, ig)
	}
	if st.RefundableCents() != 1000 || !receipt.CanClaimRefund(st) || receipt.CanRequestRefund(st) {
		t.Fatalf("refundable %d", st.RefundableCents())
	}

	madeUp := "0x" + strings.Repeat("cd", 32)
	if _, err := e.claim(st, "", madeUp); err != nil {
		t.Fatal(err)
	}
	e.commit()
	e.verify()
	e.clock.advance(time.Hour + time.Second)
	e.verify()
	if st, rec := e.refund(id, madeUp); rec.State != receipt.RefundStateRefused || st.RefundedCents != 0 || st.Status != receipt.StatusFailed {
		t.Fatalf("a made-up hash: %s %+v", st.Status, rec)
	}

	before := e.usdcOf(e.customer)
	tx := e.send(e.customer, 10_000_000)
	e.mined(tx)
	if _, err := e.claim(st, "10", tx.Hash().Hex()); err != nil {
		t.Fatal(err)
	}
	e.commit()
	if res := e.verify(); res.Processed != 1 {
		t.Fatalf("step %+v", res)
	}
	st, rec := e.refund(id, tx.Hash().Hex())
	if st.Status != receipt.StatusFailed || st.RefundedCents != 1000 || rec.State != receipt.RefundStateProcessed || rec.Proof != receipt.ProofChain ||
		rec.Recipient != e.customer || rec.AmountUnits != "10000000" {
		t.Fatalf("the real refund: %s refunded %d %+v", st.Status, st.RefundedCents, rec)
	}
	if got := e.usdcOf(e.customer); got.Sub(got, before).Int64() != 10_000_000 {
		t.Fatalf("the customer received %s", got)
	}
	if _, err := e.claim(st, "0.01", tx.Hash().Hex()); err == nil {
		t.Fatal("the same hash counted twice")
	}
	// The merchant's event log (webhook endpoints): the late payment detected, the made-up
	// claim refused, the real refund processed.
	for typ, want := range map[string]int{"receipt.payment_detected": 1, "receipt.refund_failed": 1, "receipt.refunded": 1} {
		var n int
		e.ok(e.pool.QueryRow(e.ctx, `SELECT count(*) FROM webhook_events WHERE type = $1`, typ).Scan(&n))
		if n != want {
			t.Errorf("%d %s in the merchant's event log, want %d", n, typ, want)
		}
	}
}

// ignored is the receipt's (last) PaymentIgnored as its history holds it.
func (e *refundEnv) ignored(id string) receipt.PaymentIgnored {
	e.t.Helper()
	evs, err := commands.ReadReceiptEvents(e.ctx, e.store, id)
	e.ok(err)
	var ig receipt.PaymentIgnored
	for _, ev := range evs {
		if ev.Type == receipt.EventPaymentIgnored {
			e.ok(json.Unmarshal(ev.Data, &ig))
		}
	}
	return ig
}

// TestLateWatchEnds: past the late watch (a week after the late-payment watch) an expired
// receipt's deposit is no longer read, so the watched set stays bounded.
func TestLateWatchEnds(t *testing.T) {
	e := newDepositEnv(t)
	d := e.detector()
	clock, id := e.expiredReceipt(d)
	clock.advance(24*time.Hour + settlement.DefaultLateWatch + time.Minute)
	e.chainAt(clock.now())
	e.mined(e.payToken(e.usdc, e.state(id).DepositAddress(), 10_000_000))
	e.commit()
	e.step(d)
	if st := e.want(id, receipt.StatusFailed, ""); len(st.Credits) != 0 || len(st.IgnoredPayments) != 0 {
		t.Fatalf("a transfer after the late watch was recorded: %+v", st.Credits)
	}
}

// TestLateWatchReadsNoBalance: a receipt quoted in ETH is balance-read while it can be paid; in
// the late watch it is still watched, but its balance is not read (the slices of the receipts
// that can still be paid keep their pace).
func TestLateWatchReadsNoBalance(t *testing.T) {
	e := newDepositEnv(t)
	clock := &testClock{at: time.Now()}
	window := settlement.NewPaymentWindowHandler(e.store, pgstore.NewReceipts(e.pool),
		settlement.PaymentWindowConfig{Window: time.Hour, Monitor: 24 * time.Hour}, clock.now)
	id := e.windowedReceipt(1000, clock.now(), clock.now().Add(time.Hour))
	e.quote(id, "0.01000000")
	clock.advance(time.Hour)
	e.synced()
	if got, err := window.Handle(e.ctx); err != nil || len(got) != 1 {
		t.Fatalf("expired %v (%v)", got, err)
	}
	e.synced()
	open := func() []settlement.OpenDeposit {
		got, err := pgstore.NewDeposits(e.pool).Open(e.ctx, clock.now(), 24*time.Hour, settlement.DefaultLateWatch)
		e.ok(err)
		return got
	}
	if got := open(); len(got) != 1 || !got[0].ETHQuoted {
		t.Fatalf("within the late-payment watch: %+v", got)
	}
	clock.advance(25 * time.Hour)
	if got := open(); len(got) != 1 || got[0].ReceiptID != id || got[0].ETHQuoted {
		t.Fatalf("in the late watch: %+v", got)
	}
}
