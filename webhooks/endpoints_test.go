package webhooks

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/internal/secrets"
	"github.com/payledger/payledger/migrations/pgtest"
	"github.com/payledger/payledger/readmodels"
)

// endpointFixture is a database with the endpoint store and a receiver that counts the requests
// it gets (closed with the test).
func endpointFixture(t *testing.T) (*pgxpool.Pool, *secrets.WebhookKeys, *readmodels.Endpoints, *httptest.Server, *atomic.Int32) {
	t.Helper()
	pool := pgtest.Pool(t)
	keys, err := secrets.NewWebhookKeys(pool, bytes.Repeat([]byte{9}, 32))
	if err != nil {
		t.Fatal(err)
	}
	hits := &atomic.Int32{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { hits.Add(1) }))
	t.Cleanup(srv.Close)
	return pool, keys, readmodels.NewEndpoints(pool, keys), srv, hits
}

// TestEndpointOnPrivateAddressRefusedAtSend: an endpoint stored with a loopback URL (as a
// development instance allows) gets no request from a production dispatcher: the attempt is
// recorded with the refusal and the message stays pending for its retries, which meet the same
// refusal. The same endpoint receives an event from a development dispatcher.
func TestEndpointOnPrivateAddressRefusedAtSend(t *testing.T) {
	t.Parallel()
	pool, keys, store, srv, hits := endpointFixture(t)
	ctx := context.Background()
	secret, _ := NewSecret()
	ep, err := store.Create(ctx, "0xmerchant", srv.URL, []string{"*"}, secret, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Record(ctx, readmodels.NewEvent{Key: "k1", Merchant: "0xmerchant", Type: TypeTest, At: time.Now(), Data: map[string]any{"x": 1}}); err != nil {
		t.Fatal(err)
	}
	d := func(production bool) *Dispatcher {
		return (&Dispatcher{Outbox: readmodels.NewOutbox(pool), Keys: keys, Events: postgres.New(pool), Log: zerolog.Nop(),
			Production: production,
			Endpoints:  store, RetryDelay: time.Millisecond}).Init()
	}
	if n, err := d(true).SendEndpointsDue(ctx); err != nil || n != 1 {
		t.Fatalf("production send: %d %v", n, err)
	}
	list, err := store.Attempts(ctx, "0xmerchant", ep.ID, 10)
	if err != nil || len(list) != 1 || list[0].HTTPStatus != nil || list[0].Error != ErrorInvalidURL || hits.Load() != 0 {
		t.Fatalf("production attempt: %+v %v, %d requests", list, err, hits.Load())
	}
	// An https URL on a loopback address is refused by the address check itself.
	ep2, err := store.Create(ctx, "0xmerchant", strings.Replace(srv.URL, "http://", "https://", 1), []string{"*"}, secret, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Record(ctx, readmodels.NewEvent{Key: "k2", Merchant: "0xmerchant", Type: TypeTest, At: time.Now(), Data: map[string]any{}, Endpoint: &ep2.ID}); err != nil {
		t.Fatal(err)
	}
	if _, err := d(true).SendEndpointsDue(ctx); err != nil {
		t.Fatal(err)
	}
	list, _ = store.Attempts(ctx, "0xmerchant", ep2.ID, 10)
	if len(list) != 1 || list[0].Error != ErrorDNS || hits.Load() != 0 {
		t.Fatalf("https loopback attempt: %+v, %d requests", list, hits.Load())
	}
	// A development dispatcher delivers to the same endpoint.
	if err := store.Record(ctx, readmodels.NewEvent{Key: "k3", Merchant: "0xmerchant", Type: TypeTest, At: time.Now(), Data: map[string]any{}, Endpoint: &ep.ID}); err != nil {
		t.Fatal(err)
	}
	dev, deadline := d(false), time.Now().Add(10*time.Second)
	for hits.Load() == 0 {
		if _, err := dev.SendEndpointsDue(ctx); err != nil || time.Now().After(deadline) {
			t.Fatalf("development dispatcher did not deliver: %v", err)
		}
	}
}

// TestDeletedEndpointGetsNothingRecordedConcurrently: events fanned out in transactions still
// open while the endpoint is deleted (an event the projector records, a test event whose route
// found the endpoint live) commit a pending message Delete could not see. The deleted endpoint
// receives neither; both messages end failed.
func TestDeletedEndpointGetsNothingRecordedConcurrently(t *testing.T) {
	t.Parallel()
	pool, keys, store, srv, hits := endpointFixture(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	secret, _ := NewSecret()
	ep, err := store.Create(ctx, "0xmerchant", srv.URL, []string{"*"}, secret, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // committed below
	b := &pgx.Batch{}
	if err := readmodels.QueueEvents(b, []readmodels.NewEvent{
		{Key: "fanned-out", Merchant: "0xmerchant", Type: TypeTest, At: time.Now(), Data: map[string]any{}},
		{Key: "test-event", Merchant: "0xmerchant", Type: TypeTest, At: time.Now(), Data: map[string]any{}, Endpoint: &ep.ID},
	}); err != nil {
		t.Fatal(err)
	}
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		t.Fatal(err)
	}
	if err := store.Delete(ctx, "0xmerchant", ep.ID); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	d := (&Dispatcher{Outbox: readmodels.NewOutbox(pool), Keys: keys, Events: postgres.New(pool), Log: zerolog.Nop(),
		Endpoints: store, RetryDelay: time.Millisecond}).Init()
	if _, err := d.SendEndpointsDue(ctx); err != nil {
		t.Fatal(err)
	}
	var failed, all int
	if err := pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE state = 'failed'), count(*) FROM webhook_endpoint_messages
		WHERE endpoint_id = $1`, ep.ID).Scan(&failed, &all); err != nil {
		t.Fatal(err)
	}
	if hits.Load() != 0 || failed != 2 || all != 2 {
		t.Fatalf("the deleted endpoint received %d requests; %d of its %d messages failed, want 0 requests and 2 of 2", hits.Load(), failed, all)
	}
	// Nothing is left due: the next claim finds nothing.
	if n, err := d.SendEndpointsDue(ctx); err != nil || n != 0 || hits.Load() != 0 {
		t.Fatalf("second claim: %d messages, %v, %d requests", n, err, hits.Load())
	}
}
