package settlement_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/settlement"
	"github.com/payledger/payledger/settlement/pgstore"
)

// testClock is a clock the test moves, shared by the processes under test.
type testClock struct {
	mu sync.Mutex
	at time.Time
}

func (c *testClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.at
}

func (c *testClock) advance(d time.Duration) {
	c.mu.Lock()
	c.at = c.at.Add(d)
	c.mu.Unlock()
}

// windowedReceipt issues a receipt of total cents with its deposit address, a webhook URL and a
// window ending at expiresAt.
func (e *depositEnv) windowedReceipt(total money.Cents, created, expiresAt time.Time) string {
	e.t.Helper()
	id := commands.NewReceiptID(created)
	g := receipt.Generated{ReceiptID: id, Merchant: newWallet(e.t), Source: "direct", Currency: "USD", TaxRate: "0", TaxComponents: []string{},
		LineItems: []receipt.LineItem{{Kind: receipt.KindCustom, Label: "Order", Amount: total}}, Subtotal: total, Total: total,
		WebhookURL:     "https://shop.example/hook",
		DepositAddress: chain.DepositAddress(e.factory, id, e.split).Hex(), DepositSplit: strings.ToLower(e.split.Hex()),
		ExpiresAt: expiresAt.UnixMilli()}
	_, _, err := commands.GenerateReceipt(e.ctx, e.store, created, eventstore.Metadata{}, g)
	e.ok(err)
	e.synced() // the window's due list is read from the read model
	return id
}

// webhooks is the statuses of id's queued webhook notifications, in order (one not yet
// delivered is replaced by the next: its latest status).
func (e *depositEnv) webhooks(id string) string {
	e.t.Helper()
	rows, err := e.pool.Query(e.ctx, `SELECT queued_key FROM webhook_notifications WHERE receipt_id = $1 ORDER BY created_at`, id)
	e.ok(err)
	var keys []string
	for rows.Next() {
		var k string
		e.ok(rows.Scan(&k))
		keys = append(keys, strings.Split(k, ":")[2])
	}
	e.ok(rows.Err())
	return strings.Join(keys, ",")
}

// TestPaymentWindowOnChain, on the simulated chain with the deposit detector: an underpaid and an
// unpaid receipt expire (failed, PORTAL_SESSION_EXPIRED, webhook, what arrived kept); a plain
// transfer completing the underpaid one within PAYMENT_MONITOR_WINDOW pays it late; a transfer to
// the other after the monitor window pays nothing: it is credited and recorded as PaymentIgnored
// with what the chain showed (the late watch, issue 41), to be refunded.
func TestPaymentWindowOnChain(t *testing.T) {
	t.Parallel()
	e := newDepositEnv(t)
	clock := &testClock{at: time.Now()}
	d := e.detector()
	d.Now = clock.now
	window := settlement.NewPaymentWindowHandler(e.store, pgstore.NewReceipts(e.pool),
		settlement.PaymentWindowConfig{Window: time.Hour, Monitor: 24 * time.Hour}, clock.now)
	end := clock.now().Add(time.Hour)
	under, unpaid := e.windowedReceipt(1000, clock.now(), end), e.windowedReceipt(1000, clock.now(), end)
	e.step(d)
	e.mined(e.payToken(e.usdc, e.state(under).DepositAddress(), 4_000_000))
	e.commit()
	e.step(d)
	e.want(under, receipt.StatusPending, "4.00")

	clock.advance(time.Hour)
	e.synced()
	got, err := window.Handle(e.ctx)
	if err != nil || len(got) != 2 {
		t.Fatalf("expired %v (%v), want both", got, err)
	}
	e.synced()
	for id, received := range map[string]string{under: "4.00", unpaid: ""} {
		st := e.want(id, receipt.StatusFailed, received)
		if f := st.FailureView(); f == nil || f.Code != "PORTAL_SESSION_EXPIRED" || f.Category != "session" {
			t.Fatalf("%s: failure %+v", id, f)
		}
	}
	if w := e.webhooks(under); w != "failed" {
		t.Fatalf("webhooks of the underpaid receipt: %s", w)
	}
	if w := e.webhooks(unpaid); w != "failed" {
		t.Fatalf("webhooks of the unpaid receipt: %s", w)
	}

	clock.advance(3 * time.Hour) // within the monitor window
	e.mined(e.payToken(e.usdc, e.state(under).DepositAddress(), 6_000_000))
	e.step(d)
	e.want(under, receipt.StatusFailed, "4.00") // seen, not yet confirmed: still failed
	e.commit()
	e.step(d)
	if st := e.want(under, receipt.StatusPaid, "10.00"); !st.PaidLate() || st.Payment.VerifiedBy != receipt.VerifiedByChain {
		t.Fatalf("late payment: paidLate %v, payment %+v", st.PaidLate(), st.Payment)
	}
	if w := e.webhooks(under); w != "paid" {
		t.Fatalf("webhooks of the late payment: %s", w)
	}

	clock.advance(21*time.Hour + time.Minute) // past expiry + PAYMENT_MONITOR_WINDOW
	e.chainAt(clock.now())                    // and so is the chain when the payment is mined
	e.mined(e.payToken(e.usdc, e.state(unpaid).DepositAddress(), 10_000_000))
	e.commit()
	e.step(d)
	st := e.want(unpaid, receipt.StatusFailed, "10.00")
	if st.PaidLate() || st.Payment != nil || st.ReceivedCents() != 1000 || len(st.IgnoredPayments) != 1 {
		t.Fatalf("a transfer after the monitor window paid: %+v (ignored %v)", st.Payment, st.IgnoredPayments)
	}
	if w := e.webhooks(unpaid); w != "failed" {
		t.Fatalf("webhooks after the ignored payment: %s", w)
	}
}
