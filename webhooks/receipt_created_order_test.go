package webhooks

import (
	"context"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/readmodels"
)

// TestAReceiptCreatedRecordedLateStillGoesFirst (stop 67): receipt.created is recorded by its
// own projector, which can commit after the receipts projector recorded the receipt's first
// status change; its message sorted after that change's and the endpoint was told r1 was pending
// before it was told r1 existed. A receipt.created now goes before the receipt's messages not yet
// sent.
func TestAReceiptCreatedRecordedLateStillGoesFirst(t *testing.T) {
	t.Parallel()
	pool, keys, store, _, _ := endpointFixture(t)
	recv := &orderReceiver{refuseOnce: map[string]bool{}}
	srv := httptest.NewServer(recv)
	t.Cleanup(srv.Close)
	bg := context.Background()
	secret, _ := NewSecret()
	if _, err := store.Create(bg, "0xmerchant", srv.URL, []string{"*"}, secret, time.Now()); err != nil {
		t.Fatal(err)
	}
	event := func(typ, status string) readmodels.NewEvent {
		return readmodels.NewEvent{Key: "r1/" + typ + "/" + status, Merchant: "0xmerchant", Type: typ, At: time.Now(),
			Data: map[string]any{"receiptId": "r1", "status": status}}
	}
	// The status change is recorded first, the receipt.created after it.
	if err := store.Record(bg, event(TypeReceiptStatusUpdated, "pending")); err != nil {
		t.Fatal(err)
	}
	if err := store.Record(bg, event(readmodels.EventReceiptCreated, "generated")); err != nil {
		t.Fatal(err)
	}
	d := (&Dispatcher{Outbox: readmodels.NewOutbox(pool), Keys: keys, Events: postgres.New(pool), Log: zerolog.Nop(),
		Endpoints: store, Workers: -1, RetryDelay: 500 * time.Millisecond}).Init()
	ctx, cancel := context.WithCancel(bg)
	done := make(chan struct{})
	go func() { defer close(done); _ = d.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	wait.Until(t, "both messages to be delivered", 10*time.Second, func() bool {
		_, accepted := recv.seen()
		return len(accepted) == 2
	})
	if _, accepted := recv.seen(); !slices.Equal(accepted, []string{"r1/generated", "r1/pending"}) {
		t.Fatalf("delivered in the order %v, want the receipt.created (generated) before the pending", accepted)
	}
}
