package webhooks

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/readmodels"
)

// orderReceiver is an endpoint's receiver that refuses (500) the first attempt of each delivery
// named in refuseOnce and accepts the rest, keeping what it was sent (named by key: by default
// "receiptId/status") in the order it came, and what it accepted. A delivery named in acceptAfter
// is not answered before the delivery it names has been accepted (or holdFor has passed), so a
// test that wants another message delivered while a retry is due states that as a condition
// instead of counting on the retry's delay.
type orderReceiver struct {
	mu                 sync.Mutex
	refuseOnce         map[string]bool
	acceptAfter        map[string]string
	key                func(data map[string]any) string // nil: receiptOrderKey
	requests, accepted []string
	acceptedOne        chan struct{} // nil until first needed; closed and replaced on each acceptance
}

// holdFor bounds how long a delivery named in acceptAfter is held: a dispatcher that wrongly
// holds the other delivery behind it is then seen as the wrong order, not as a hung test. It is
// well under the dispatcher's per-attempt timeout (DefaultTimeout), which would fail the attempt.
const holdFor = 2 * time.Second

// receiptOrderKey names a receipt webhook "receiptId/status".
func receiptOrderKey(data map[string]any) string {
	return fmt.Sprintf("%v/%v", data["receiptId"], data["status"])
}

func (o *orderReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body map[string]any
	_ = json.NewDecoder(r.Body).Decode(&body)
	if d, ok := body["data"].(map[string]any); ok { // an endpoint's Standard Webhooks envelope
		body = d
	}
	key := o.key
	if key == nil {
		key = receiptOrderKey
	}
	got := key(body)
	o.mu.Lock()
	defer o.mu.Unlock()
	o.requests = append(o.requests, got)
	if o.refuseOnce[got] {
		o.refuseOnce[got] = false
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	o.holdUntilAccepted(o.acceptAfter[got])
	o.accepted = append(o.accepted, got)
	if o.acceptedOne != nil {
		close(o.acceptedOne)
		o.acceptedOne = nil
	}
}

// holdUntilAccepted waits, with o.mu held on entry and exit, until other has been accepted or
// holdFor has passed; "" does not wait.
func (o *orderReceiver) holdUntilAccepted(other string) {
	if other == "" {
		return
	}
	deadline := time.After(holdFor)
	for !slices.Contains(o.accepted, other) {
		if o.acceptedOne == nil {
			o.acceptedOne = make(chan struct{})
		}
		next := o.acceptedOne
		o.mu.Unlock()
		select {
		case <-next:
			o.mu.Lock()
		case <-deadline:
			o.mu.Lock()
			return
		}
	}
}

func (o *orderReceiver) seen() (requests, accepted []string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Clone(o.requests), slices.Clone(o.accepted)
}

// TestAReceiptsEndpointMessagesArriveInOrder (stop 66): each endpoint message went out on its
// own (up to 8 of one endpoint at once, each retried on its own schedule), so a receipt's pending
// whose first attempt failed was delivered after the paid recorded behind it, and a receiver that
// keeps the last status it was sent believed the receipt unpaid. A message now waits while an
// earlier one about the same receipt to the same endpoint is pending: r1's paid is sent only once
// its pending is delivered. Another receipt's message is not held (r2's paid goes at once).
func TestAReceiptsEndpointMessagesArriveInOrder(t *testing.T) {
	t.Parallel()
	pool, keys, store, _, _ := endpointFixture(t)
	recv := &orderReceiver{refuseOnce: map[string]bool{"r1/pending": true}, acceptAfter: map[string]string{"r1/pending": "r2/paid"}}
	srv := httptest.NewServer(recv)
	t.Cleanup(srv.Close)
	bg := context.Background()
	secret, _ := NewSecret()
	if _, err := store.Create(bg, "0xmerchant", srv.URL, []string{"*"}, secret, time.Now()); err != nil {
		t.Fatal(err)
	}
	status := func(receipt, st string) readmodels.NewEvent {
		return readmodels.NewEvent{Key: receipt + "/" + st, Merchant: "0xmerchant", Type: TypeReceiptStatusUpdated, At: time.Now(),
			Data: map[string]any{"receiptId": receipt, "status": st}}
	}
	if err := store.Record(bg, status("r1", "pending"), status("r1", "paid"), status("r2", "paid")); err != nil {
		t.Fatal(err)
	}
	d := (&Dispatcher{Outbox: readmodels.NewOutbox(pool), Keys: keys, Events: postgres.New(pool), Log: zerolog.Nop(),
		Endpoints: store, Workers: -1, RetryDelay: 20 * time.Millisecond}).Init()
	ctx, cancel := context.WithCancel(bg)
	done := make(chan struct{})
	go func() { defer close(done); _ = d.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	wait.Until(t, "the three messages to be delivered", 10*time.Second, func() bool {
		_, accepted := recv.seen()
		return len(accepted) == 3
	})
	requests, accepted := recv.seen()
	if want := []string{"r2/paid", "r1/pending", "r1/paid"}; !slices.Equal(accepted, want) {
		t.Fatalf("delivered in the order %v (requests %v), want %v: r1's paid after its pending, r2's not held", accepted, requests, want)
	}
	if i := slices.Index(requests, "r1/paid"); i < slices.Index(requests, "r1/pending")+1 || len(requests) != 4 {
		t.Fatalf("requests %v: r1's paid was sent while its pending was not delivered", requests)
	}
}
