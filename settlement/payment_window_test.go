package settlement_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/readmodels"
	"github.com/payledger/payledger/settlement"
	"github.com/payledger/payledger/settlement/pgstore"
)

// windowEnv is a ledger with the receipts projection (and its webhook outbox) running, a clock
// the test moves, and the payment window process on it.
type windowEnv struct {
	t     *testing.T
	ctx   context.Context
	pool  *pgxpool.Pool
	store eventstore.Store
	testClock
	cfg settlement.PaymentWindowConfig
}

func newWindowEnv(t *testing.T) *windowEnv {
	t.Helper()
	ctx := context.Background()
	pool, store, _, stop := receiptsLedger(t, ctx)
	t.Cleanup(stop)
	return &windowEnv{t: t, ctx: ctx, pool: pool, store: store, testClock: testClock{at: time.UnixMilli(1_795_000_000_000)},
		cfg: settlement.PaymentWindowConfig{Window: time.Hour, Monitor: 24 * time.Hour, Poll: 100 * time.Millisecond}}
}

func (e *windowEnv) handler() *settlement.PaymentWindowHandler {
	return settlement.NewPaymentWindowHandler(e.store, pgstore.NewReceipts(e.pool), e.cfg, e.now)
}

// receipt generates a 10.00 USD receipt with a deposit address, a webhook URL and a window of
// cfg.Window from now.
func (e *windowEnv) receipt() string {
	e.t.Helper()
	total := money.Cents(1000)
	now := e.now()
	id := commands.NewReceiptID(now)
	g := receipt.Generated{ReceiptID: id, Merchant: payMerchant, Source: "direct", Currency: "USD", TaxRate: "0", TaxComponents: []string{},
		LineItems: []receipt.LineItem{{Kind: receipt.KindCustom, Label: "Order", Amount: total}}, Subtotal: total, Total: total,
		WebhookURL: "https://shop.example/hook", DepositAddress: "0x" + strings.Repeat("d", 40), DepositSplit: payPlatform,
		ExpiresAt: now.Add(e.cfg.Window).UnixMilli()}
	if _, _, err := commands.GenerateReceipt(e.ctx, e.store, now, eventstore.Metadata{}, g); err != nil {
		e.t.Fatalf("generate: %v", err)
	}
	awaitReceiptsProjected(e.t, e.ctx, e.pool) // the window's due list is read there
	return id
}

// change runs decide on receipt id through the pipeline.
func (e *windowEnv) change(id string, decide func(receipt.State) ([]receipt.Event, error)) {
	e.t.Helper()
	if _, _, err := commands.ChangeReceipt(e.ctx, e.store, id, eventstore.Metadata{}, decide); err != nil {
		e.t.Fatalf("change %s: %v", id, err)
	}
	awaitReceiptsProjected(e.t, e.ctx, e.pool)
}

// deposit reports a USDC transfer of units base units to id's deposit address, confirmed, now.
func (e *windowEnv) deposit(id string, n int, units string) {
	e.t.Helper()
	at := e.now().UnixMilli()
	e.change(id, func(st receipt.State) ([]receipt.Event, error) {
		return receipt.ObserveDeposit(st, receipt.DepositObservation{Confirmed: true, At: at, Transfer: receipt.DepositTransferSeen{
			TransactionHash: fmt.Sprintf("0x%064x", n), LogIndex: 0, BlockNumber: uint64(n), BlockHash: fmt.Sprintf("0x%064x", 1000+n),
			Sender: payMerchant, Token: "USDC", AmountUnits: units, Decimals: 6}})
	})
}

func (e *windowEnv) state(id string) receipt.State {
	e.t.Helper()
	l, err := commands.LoadReceipt(e.ctx, e.store, id)
	if err != nil {
		e.t.Fatalf("load: %v", err)
	}
	return l.State
}

// history is the types of id's events, comma-separated.
func (e *windowEnv) history(id string) string {
	e.t.Helper()
	evs, err := commands.ReadReceiptEvents(e.ctx, e.store, id)
	if err != nil {
		e.t.Fatal(err)
	}
	out := make([]string, len(evs))
	for i, ev := range evs {
		out[i] = ev.Type
	}
	return strings.Join(out, ",")
}

// webhookQueued waits until the receipts projection queued id's webhook of status st.
func (e *windowEnv) webhookQueued(id string, st receipt.Status) {
	e.t.Helper()
	key := "receipt-status:" + id + ":" + string(st) + ":"
	deadline := time.Now().Add(5 * time.Second)
	for {
		var n int
		if err := e.pool.QueryRow(e.ctx, `SELECT count(*) FROM webhook_notifications WHERE receipt_id = $1 AND queued_key LIKE $2 || '%'`,
			id, key).Scan(&n); err != nil {
			e.t.Fatal(err)
		}
		if n == 1 {
			return
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("no webhook queued for %s %s (%d)", id, st, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// wantExpired fails unless id is failed by its window with amountReceived as given.
func (e *windowEnv) wantExpired(id, received string) {
	e.t.Helper()
	st := e.state(id)
	f := st.FailureView()
	if st.Status != receipt.StatusFailed || f == nil || f.Code != "PORTAL_SESSION_EXPIRED" || f.Category != "session" || !st.Expired() {
		e.t.Fatalf("%s: status %s, failure %+v", id, st.Status, f)
	}
	if got := st.AmountReceived(); got != received {
		e.t.Fatalf("%s: amountReceived %q, want %q", id, got, received)
	}
	e.webhookQueued(id, receipt.StatusFailed) // queued with the read model's row, in one transaction
	row, err := readmodels.NewReceipts(e.pool).Get(e.ctx, "", id)
	if err != nil || row.State.Status != receipt.StatusFailed || row.State.FailureView().Code != "PORTAL_SESSION_EXPIRED" {
		e.t.Fatalf("read model of %s: %+v %v", id, row.State.Status, err)
	}
}

// TestPaymentWindowExpiryAndLatePayment: an unpaid and an underpaid receipt fail at the end of
// their window (PORTAL_SESSION_EXPIRED, webhook, amountReceived kept); a confirmed transfer
// completing the amount within the monitor window pays the underpaid one late; one after it
// does not pay the other.
func TestPaymentWindowExpiryAndLatePayment(t *testing.T) {
	t.Parallel()
	e := newWindowEnv(t)
	h := e.handler()
	unpaid, underpaid, paid := e.receipt(), e.receipt(), e.receipt()
	e.deposit(underpaid, 1, "4000000") // 4.00 of 10.00
	e.deposit(paid, 2, "10000000")
	if st := e.state(underpaid); st.Status != receipt.StatusPending || st.AmountReceived() != "4.00" {
		t.Fatalf("underpaid before the window's end: %s %q", st.Status, st.AmountReceived())
	}

	e.advance(time.Hour - time.Second)
	if got, err := h.Handle(e.ctx); err != nil || len(got) != 0 {
		t.Fatalf("pass before the window's end: %v %v", got, err)
	}
	e.advance(time.Second)
	got, err := h.Handle(e.ctx)
	if err != nil || len(got) != 2 {
		t.Fatalf("pass at the window's end expired %v (%v), want the unpaid and the underpaid", got, err)
	}
	e.wantExpired(unpaid, "")
	e.wantExpired(underpaid, "4.00")
	if st := e.state(paid); st.Status != receipt.StatusPaid || st.Expired() {
		t.Fatalf("a paid receipt: %s", st.Status)
	}
	if got, err := h.Handle(e.ctx); err != nil || len(got) != 0 {
		t.Fatalf("a second pass expired %v (%v)", got, err)
	}
	e.advance(23 * time.Hour)
	e.deposit(underpaid, 3, "6000000") // completes 10.00 within the monitor window
	st := e.state(underpaid)
	if st.Status != receipt.StatusPaid || !st.PaidLate() || st.AmountReceived() != "10.00" {
		t.Fatalf("late payment: status %s, paidLate %v, received %q", st.Status, st.PaidLate(), st.AmountReceived())
	}
	e.webhookQueued(underpaid, receipt.StatusPaid)

	e.advance(time.Hour + time.Second) // past the monitor window
	e.deposit(unpaid, 4, "10000000")
	if st := e.state(unpaid); st.Status != receipt.StatusFailed || st.PaidLate() {
		t.Fatalf("a payment after the monitor window: status %s", st.Status)
	}
	if h := e.history(unpaid); !strings.HasSuffix(h, receipt.EventPaymentIgnored) {
		t.Fatalf("history of the payment after the monitor window: %s", h)
	}
}

// TestPaymentWindowRunWithinFiveSeconds: the running process records an ended window within 5 s.
func TestPaymentWindowRunWithinFiveSeconds(t *testing.T) {
	t.Parallel()
	e := newWindowEnv(t)
	e.cfg.Window = 2 * time.Second
	e.at = time.Now()
	real := func() time.Time { return time.Now() }
	id := e.receipt()
	ctx, cancel := context.WithCancel(e.ctx)
	done := make(chan error, 1)
	go func() {
		done <- settlement.NewPaymentWindowHandler(e.store, pgstore.NewReceipts(e.pool), e.cfg, real).Run(ctx, zerolog.Nop())
	}()
	defer func() { cancel(); <-done }()
	end := time.UnixMilli(e.state(id).Receipt.ExpiresAt)
	for e.state(id).Status != receipt.StatusFailed {
		if time.Since(end) > 5*time.Second {
			t.Fatalf("not expired 5 s after the window's end")
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("expired %v after the window's end", time.Since(end).Round(time.Millisecond))
	e.wantExpired(id, "")
}

// TestPaymentWindowTwoInstances: two processes passing over the same ended windows at once record
// each expiry once.
func TestPaymentWindowTwoInstances(t *testing.T) {
	t.Parallel()
	e := newWindowEnv(t)
	ids := make([]string, 40)
	for i := range ids {
		ids[i] = e.receipt()
	}
	e.advance(time.Hour)
	var wg sync.WaitGroup
	counts := make([]int, 2)
	for i := range counts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := e.handler().Handle(e.ctx)
			if err != nil {
				t.Error(err)
			}
			counts[i] = len(got)
		}()
	}
	wg.Wait()
	if counts[0]+counts[1] != len(ids) {
		t.Fatalf("the two passes expired %v receipts, want %d in all", counts, len(ids))
	}
	for _, id := range ids {
		if h := e.history(id); strings.Count(h, receipt.EventWindowExpired) != 1 {
			t.Fatalf("history of %s: %s", id, h)
		}
	}
}

// TestPaymentWindowOnrampAttemptHolds: an open onramp attempt holds the window (the processor
// decides); once the processor fails it, the next pass expires the receipt.
func TestPaymentWindowOnrampAttemptHolds(t *testing.T) {
	t.Parallel()
	e := newWindowEnv(t)
	h := e.handler()
	onramp := e.receipt()
	e.change(onramp, func(st receipt.State) ([]receipt.Event, error) {
		return receipt.StartAttempt(st, receipt.AttemptStarted{AttemptID: "att_on", Kind: "onramp", SessionID: "cos_1", At: e.now().UnixMilli()})
	})
	e.advance(2 * time.Hour)
	if got, err := h.Handle(e.ctx); err != nil || len(got) != 0 {
		t.Fatalf("expired %v (%v) with an onramp attempt open", got, err)
	}
	if st := e.state(onramp); st.Status != receipt.StatusGenerated || st.Expired() {
		t.Fatalf("a receipt with an onramp attempt open expired: %s", st.Status)
	}
	// Once the processor fails the onramp attempt, the window that ended closes on the next pass.
	e.change(onramp, func(st receipt.State) ([]receipt.Event, error) {
		return receipt.DecideProcessorUpdate(st, receipt.ProcessorUpdate{SessionID: "cos_1", Status: "rejected", ErrorCode: "card_declined", At: e.now().UnixMilli()})
	})
	e.webhookQueued(onramp, receipt.StatusFailed)
	if got, err := h.Handle(e.ctx); err != nil || len(got) != 1 || got[0].ReceiptID != onramp {
		t.Fatalf("pass after the onramp failed: %v (%v)", got, err)
	}
	if st := e.state(onramp); st.Status != receipt.StatusFailed || !st.Expired() || st.FailureView().Code != "PORTAL_SESSION_EXPIRED" {
		t.Fatalf("onramp receipt after its attempt failed: %s %+v", st.Status, st.FailureView())
	}
}

// TestPaymentWindowConfigDefaults: zero fields take the defaults; a poll slower than the 5-second
// promise allows is capped.
func TestPaymentWindowConfigDefaults(t *testing.T) {
	t.Parallel()
	due := pgstore.NewReceipts(nil)
	cfg := settlement.NewPaymentWindowHandler(postgres.New(nil), due, settlement.PaymentWindowConfig{}, time.Now).Config()
	if cfg.Window != time.Hour || cfg.Monitor != 24*time.Hour || cfg.Poll != time.Second || cfg.Batch != 500 {
		t.Fatalf("defaults %+v", cfg)
	}
	cfg = settlement.NewPaymentWindowHandler(postgres.New(nil), due, settlement.PaymentWindowConfig{Poll: 10 * time.Second}, time.Now).Config()
	if cfg.Poll != 4*time.Second {
		t.Fatalf("poll %v, want capped at 4s", cfg.Poll)
	}
}
