package webhooks

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/readmodels"
)

// TestHangingEndpointBacklogDoesNotHoldUpOtherMerchants: one merchant's endpoint whose receiver
// hangs, with more due messages than the worker keeps in flight, does not delay another
// merchant's event: the hanging endpoint takes only its share of the attempts in flight. The claim
// took the oldest due messages whoever they were for, so the backlog filled every place and the
// other merchant waited a timeout for each bound's worth of it.
func TestHangingEndpointBacklogDoesNotHoldUpOtherMerchants(t *testing.T) {
	t.Parallel()
	pool, keys, store, fast, fastHits := endpointFixture(t)
	slow, slowHits := hangingReceiver(t)
	bg := context.Background()
	secret, _ := NewSecret()
	slowEP, err := store.Create(bg, "0xslow", slow.URL, []string{"*"}, secret, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Create(bg, "0xfast", fast.URL, []string{"*"}, secret, time.Now()); err != nil {
		t.Fatal(err)
	}
	const backlog = endpointInFlight + 44
	if _, err := pool.Exec(bg, `WITH ev AS (
			INSERT INTO webhook_events (seq, id, event_key, merchant_wallet, type, data, occurred_at)
			SELECT nextval('webhook_events_seq'), gen_random_uuid(), 'slow-' || i, '0xslow', $2, '{}', now()
			FROM generate_series(1, $3) AS i RETURNING id)
		INSERT INTO webhook_endpoint_messages (endpoint_id, event_id, next_attempt_at) SELECT $1, id, now() - interval '1 minute' FROM ev`,
		slowEP.ID, TypeTest, backlog); err != nil {
		t.Fatal(err)
	}
	d := (&Dispatcher{Outbox: readmodels.NewOutbox(pool), Keys: keys, Events: postgres.New(pool), Log: zerolog.Nop(),
		Endpoints: store, Workers: -1, Timeout: 20 * time.Second}).Init()
	ctx, cancel := context.WithCancel(bg)
	done := make(chan struct{})
	go func() { defer close(done); _ = d.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	wait.Until(t, "the hanging receiver to have requests", 10*time.Second, func() bool { return slowHits.Load() > 0 })
	if err := store.Record(bg, readmodels.NewEvent{Key: "fast-1", Merchant: "0xfast", Type: TypeTest, At: time.Now(), Data: map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	d.Wake()
	wait.Until(t, "the other merchant's event while the backlog hangs", 10*time.Second, func() bool { return fastHits.Load() == 1 })
	if n := slowHits.Load(); n > endpointShare {
		t.Fatalf("the hanging endpoint has %d attempts in flight, more than its share %d", n, endpointShare)
	}
}

// paidReceiptOf is world.paidReceipt for merchant's receipt.
func (w *world) paidReceiptOf(t *testing.T, merchant, id, url string) {
	t.Helper()
	ctx := context.Background()
	if err := w.keys.Save(ctx, id, "plk_secret"); err != nil {
		t.Fatal(err)
	}
	g := receipt.Generated{ReceiptID: id, Merchant: merchant, Currency: "USD", WebhookURL: url,
		LineItems: []receipt.LineItem{{Kind: receipt.KindCustom, Label: "x", Amount: 100}}, Total: 100}
	if _, _, err := commands.GenerateReceipt(ctx, w.store, time.Now(), eventstore.Metadata{}, g); err != nil {
		t.Fatal(err)
	}
	_, res, err := commands.ChangeReceipt(ctx, w.store, id, eventstore.Metadata{}, func(st receipt.State) ([]receipt.Event, error) {
		return receipt.Confirm(st, receipt.PaymentConfirmed{AttemptID: "a", VerifiedBy: "chain",
			TransactionHash: "0x" + strings.Repeat("a", 64), At: time.Now().UnixMilli()})
	})
	if err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := w.runner.WaitFor(wctx, res.Position); err != nil {
		t.Fatal(err)
	}
}

// TestHangingMerchantBacklogDoesNotHoldUpOtherReceiptWebhooks: a merchant with more due receipt
// webhooks than the workers keep in flight, to a receiver that hangs, does not delay another
// merchant's webhook: the merchant takes only its share of the attempts in flight. The claim took
// the oldest due notifications whoever they were for, so the backlog filled every place and the
// other merchant waited a timeout for each bound's worth of it.
func TestHangingMerchantBacklogDoesNotHoldUpOtherReceiptWebhooks(t *testing.T) {
	t.Parallel()
	w := newWorld(t, func(d *Dispatcher) { d.Workers = 1; d.Timeout = 20 * time.Second })
	slow, slowHits := hangingReceiver(t)
	busyMerchant := "0x" + strings.Repeat("b", 40)
	for i := range workerInFlight + 8 {
		w.paidReceiptOf(t, busyMerchant, fmt.Sprintf("slow-%d", i), slow.URL)
	}
	w.run(t)
	wait.Until(t, "the hanging receiver to have requests", 10*time.Second, func() bool { return slowHits.Load() > 0 })
	fast := newScript(t)
	w.paidReceiptOf(t, "0x"+strings.Repeat("c", 40), "fast", fast.srv.URL)
	wait.Until(t, "the other merchant's webhook while the backlog hangs", 10*time.Second, func() bool { return len(fast.got()) == 1 })
}
