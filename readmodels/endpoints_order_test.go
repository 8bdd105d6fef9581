package readmodels

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payledger/payledger/internal/secrets"
	"github.com/payledger/payledger/migrations/pgtest"
)

// heldAt is when the message of the event keyed key to endpoint ep is due.
func heldAt(t *testing.T, pool *pgxpool.Pool, ep uuid.UUID, key string) time.Time {
	t.Helper()
	var at time.Time
	if err := pool.QueryRow(context.Background(), `SELECT m.next_attempt_at FROM webhook_endpoint_messages m
		JOIN webhook_events v ON v.id = m.event_id WHERE m.endpoint_id = $1 AND v.event_key = $2`, ep, key).Scan(&at); err != nil {
		t.Fatal(err)
	}
	return at
}

// TestHeldEndpointMessagesFollowTheirReceiptsRetry (stop 66): a message held behind an earlier
// pending message of its receipt (ClaimMessages) was due all along, so while a receiver kept
// failing, every claim passed over all of them, first in the due order, to reach anything it could
// send. A held message is due with the retry of the message it waits for: moved when that one
// fails, queued at its time when recorded meanwhile, and due at once when a manual redelivery
// delivers it. Another receipt's message is not moved.
func TestHeldEndpointMessagesFollowTheirReceiptsRetry(t *testing.T) {
	t.Parallel()
	pool := pgtest.Pool(t)
	keys, err := secrets.NewWebhookKeys(pool, bytes.Repeat([]byte{5}, 32))
	if err != nil {
		t.Fatal(err)
	}
	store, ctx := NewEndpoints(pool, keys), context.Background()
	ep, err := store.Create(ctx, "0xm", "https://example.com/hook", []string{"*"}, "whsec_AAAA", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	status := func(key, receipt string) NewEvent {
		return NewEvent{Key: key, Merchant: "0xm", Type: EventReceiptStatusUpdated, At: time.Now(), Data: map[string]any{"receiptId": receipt}}
	}
	if err := store.Record(ctx, status("r1-pending", "r1"), status("r1-paid", "r1"), status("r2-paid", "r2")); err != nil {
		t.Fatal(err)
	}
	claimed, err := store.ClaimMessages(ctx, 10, 8, nil, time.Minute)
	if err != nil || len(claimed) != 2 {
		t.Fatalf("claimed %d messages (%v), want r1's pending and r2's paid", len(claimed), err)
	}
	var head uuid.UUID // r1's pending
	if err := pool.QueryRow(ctx, `SELECT id FROM webhook_events WHERE event_key = 'r1-pending'`).Scan(&head); err != nil {
		t.Fatal(err)
	}
	retry := time.Now().Add(time.Hour).Truncate(time.Microsecond)
	if err := store.CompleteMessage(ctx, EndpointAttempt{ID: uuid.New(), EndpointID: ep.ID, EventID: head, AttemptedAt: time.Now(),
		Error: "http_status", Kind: "first"}, NotePending, retry); err != nil {
		t.Fatal(err)
	}
	if at := heldAt(t, pool, ep.ID, "r1-paid"); !at.Equal(retry) {
		t.Fatalf("r1's paid, held behind its failed pending, is due at %v, want with the retry at %v", at, retry)
	}
	if err := store.Record(ctx, status("r1-refunded", "r1"), status("r2-refunded", "r2")); err != nil {
		t.Fatal(err)
	}
	if at := heldAt(t, pool, ep.ID, "r1-refunded"); !at.Equal(retry) {
		t.Fatalf("r1's next event, recorded while its pending waits for the retry, is due at %v, want %v", at, retry)
	}
	if at := heldAt(t, pool, ep.ID, "r2-refunded"); at.After(time.Now()) {
		t.Fatalf("r2's event is due at %v, moved by r1's retry", at)
	}
	ok := 200
	if err := store.CompleteMessage(ctx, EndpointAttempt{ID: uuid.New(), EndpointID: ep.ID, EventID: head, AttemptedAt: time.Now(),
		HTTPStatus: &ok, Kind: "redeliver"}, NoteDelivered, time.Now()); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"r1-paid", "r1-refunded"} {
		if at := heldAt(t, pool, ep.ID, key); at.After(time.Now()) {
			t.Fatalf("%s is due at %v after its pending was redelivered, want at once", key, at)
		}
	}
}
