package webhooks

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payledger/payledger/readmodels"
)

// A manual redelivery tells the merchant before it leaves, as every other delivery does: it
// carries the receipt's newest state, read from the event log, and a merchant that reads its
// receipts while handling it must be sent to the primary, not a replica that has not caught up.
// Redeliver and SendEndpoint (the endpoint redelivery) named nobody to Telling.
func TestARedeliveryTellsTheMerchantFirst(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var told []string
	w := newWorld(t, func(d *Dispatcher) {
		d.Telling = func(m string) { mu.Lock(); told = append(told, m); mu.Unlock() }
	})
	merchant := "0x" + strings.Repeat("7", 40) // paidReceipt's
	var toldFirst []bool
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		toldFirst = append(toldFirst, len(told) > 0 && told[len(told)-1] == merchant)
		told = nil
	}))
	t.Cleanup(srv.Close)
	w.paidReceipt(t, "tell-re", srv.URL+"/hook", "plk_secret")
	ctx := context.Background()
	var c readmodels.Claimed
	if err := w.pool.QueryRow(ctx, `SELECT id, receipt_id, merchant_wallet, url, queued_key, state FROM webhook_notifications
		WHERE receipt_id = 'tell-re'`).Scan(&c.ID, &c.ReceiptID, &c.Merchant, &c.URL, &c.QueuedKey, &c.State); err != nil {
		t.Fatal(err)
	}
	if a, err := w.disp.Redeliver(ctx, c); err != nil || a.Error != "" {
		t.Fatalf("redeliver: %v %q", err, a.Error)
	}
	// An endpoint's redelivery (the route calls SendEndpoint), the dispatcher not running.
	eps := readmodels.NewEndpoints(w.pool, w.keys)
	w.disp.Endpoints = eps
	secret, err := NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	ep, err := eps.Create(ctx, merchant, srv.URL+"/ep", []string{"*"}, secret, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := eps.Record(ctx, readmodels.NewEvent{Key: "tell-test", Merchant: merchant, Type: TypeTest, At: time.Now(), Endpoint: &ep.ID,
		Data: readmodels.WebhookTest{EndpointID: ep.ID.String(), Message: "test"}}); err != nil {
		t.Fatal(err)
	}
	var eventID uuid.UUID
	if err := w.pool.QueryRow(ctx, `SELECT event_id FROM webhook_endpoint_messages WHERE endpoint_id = $1`, ep.ID).Scan(&eventID); err != nil {
		t.Fatal(err)
	}
	m, err := eps.Message(ctx, merchant, ep.ID, eventID)
	if err != nil {
		t.Fatal(err)
	}
	if a := w.disp.SendEndpoint(ctx, m, "redeliver"); a.Error != "" {
		t.Fatalf("endpoint redelivery: %q", a.Error)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(toldFirst) != 2 || !toldFirst[0] || !toldFirst[1] {
		t.Fatalf("the redeliveries (receipt webhook, endpoint) reached their receiver with the merchant told first: %v", toldFirst)
	}
}
