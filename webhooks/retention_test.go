package webhooks

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/internal/syncbuf"
	"github.com/payledger/payledger/readmodels"
)

// TestRetentionPrunesWhatIsNoLongerKept (stop 67): nothing pruned the webhook tables, so the
// event log, endpoint messages and attempts, receipt webhook notifications and their deliveries,
// and subscription webhooks grew for ever. The retention step deletes what was recorded (closed)
// more than 30 days ago, from the log's start, never an event still owed to an endpoint (that
// holds the log, and the step fails saying so, for /healthz) nor an open notification; it logs
// what it pruned.
func TestRetentionPrunesWhatIsNoLongerKept(t *testing.T) {
	t.Parallel()
	pool, _, store, srv, _ := endpointFixture(t)
	bg := context.Background()
	secret, _ := NewSecret()
	if _, err := store.Create(bg, "0xmerchant", srv.URL, []string{"*"}, secret, time.Now()); err != nil {
		t.Fatal(err)
	}
	ev := func(key string) readmodels.NewEvent {
		return readmodels.NewEvent{Key: key, Merchant: "0xmerchant", Type: TypeReceiptStatusUpdated, At: time.Now(),
			Data: map[string]any{"receiptId": key, "status": "paid"}}
	}
	if err := store.Record(bg, ev("old-delivered"), ev("old-owed"), ev("new")); err != nil {
		t.Fatal(err)
	}
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := pool.Exec(bg, sql, args...); err != nil {
			t.Fatal(err)
		}
	}
	exec(`UPDATE webhook_events SET recorded_at = now() - interval '40 days' WHERE event_key LIKE 'old-%'`)
	exec(`UPDATE webhook_endpoint_messages m SET state = 'delivered' FROM webhook_events v
		WHERE v.id = m.event_id AND v.event_key IN ('old-delivered', 'new')`)
	exec(`INSERT INTO webhook_endpoint_attempts (id, endpoint_id, event_id, attempted_at, latency_ms, kind)
		SELECT gen_random_uuid(), m.endpoint_id, m.event_id, now(), 1, 'first' FROM webhook_endpoint_messages m`)
	// Receipt webhook notifications: an old delivered one with its delivery, an old open one, a new one.
	exec(`INSERT INTO webhook_notifications (id, receipt_id, merchant_wallet, url, queued_key, state, next_attempt_at, created_at, updated_at)
		VALUES (gen_random_uuid(), 'r-old', '0xmerchant', 'https://example.com', 'k-old', 'delivered', now(), now() - interval '40 days', now() - interval '40 days'),
			(gen_random_uuid(), 'r-open', '0xmerchant', 'https://example.com', 'k-open', 'marked', now(), now() - interval '40 days', now() - interval '40 days'),
			(gen_random_uuid(), 'r-new', '0xmerchant', 'https://example.com', 'k-new', 'delivered', now(), now(), now())`)
	exec(`INSERT INTO webhook_deliveries (id, notification_id, receipt_id, merchant_wallet, delivery_id, idempotency_key, status_sent, url, attempted_at, latency_ms, kind)
		SELECT gen_random_uuid(), id, receipt_id, merchant_wallet, gen_random_uuid(), queued_key, 'paid', url, now(), 1, 'first' FROM webhook_notifications`)
	exec(`INSERT INTO subscription_webhooks (id, idempotency_key, event, subscription_id, merchant_wallet, url, payload, state, created_at)
		VALUES (gen_random_uuid(), 's-old', 'subscription.charged', 'sub_1', '0xmerchant', 'https://example.com', '{}', 'delivered', now() - interval '40 days'),
			(gen_random_uuid(), 's-open', 'subscription.charged', 'sub_2', '0xmerchant', 'https://example.com', '{}', 'pending', now() - interval '40 days')`)

	logs := &syncbuf.Buffer{}
	r := &Retention{Endpoints: store, Outbox: readmodels.NewOutbox(pool), Subscriptions: readmodels.NewSubscriptionWebhooks(pool),
		Log: zerolog.New(logs)}
	count := func(sql string) int {
		t.Helper()
		var n int
		if err := pool.QueryRow(bg, sql).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	left := func() string {
		var events []string
		rows, err := pool.Query(bg, `SELECT event_key FROM webhook_events ORDER BY seq`)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var k string
			_ = rows.Scan(&k)
			events = append(events, k)
		}
		rows.Close()
		return strings.Join(events, ",")
	}

	progressed, err := r.Step(bg)
	if progressed || err == nil || !strings.Contains(err.Error(), "still owed") {
		t.Fatalf("step with an old event still owed: progressed %v, %v; want a failed step naming it", progressed, err)
	}
	if got := left(); got != "old-owed,new" {
		t.Fatalf("events left %s, want old-owed,new (the delivered old one pruned, the owed one kept)", got)
	}
	if n := count(`SELECT count(*) FROM webhook_endpoint_messages`); n != 2 {
		t.Fatalf("%d endpoint messages left, want 2", n)
	}
	if n := count(`SELECT count(*) FROM webhook_endpoint_attempts`); n != 2 {
		t.Fatalf("%d endpoint attempts left, want 2", n)
	}
	if n := count(`SELECT count(*) FROM webhook_notifications WHERE receipt_id IN ('r-open', 'r-new')`); n != 2 || count(`SELECT count(*) FROM webhook_notifications`) != 2 {
		t.Fatalf("notifications left: want the open old one and the new one")
	}
	if n := count(`SELECT count(*) FROM webhook_deliveries`); n != 2 {
		t.Fatalf("%d deliveries left, want 2 (the pruned notification's gone)", n)
	}
	if n := count(`SELECT count(*) FROM subscription_webhooks WHERE idempotency_key = 's-open'`); n != 1 || count(`SELECT count(*) FROM subscription_webhooks`) != 1 {
		t.Fatalf("subscription webhooks left: want the pending one only")
	}
	if !strings.Contains(logs.String(), "webhook retention pruned") {
		t.Fatalf("nothing logged: %s", logs.String())
	}
	// The owed event is given up: the log is pruned past it.
	exec(`UPDATE webhook_endpoint_messages SET state = 'failed' WHERE state = 'pending'`)
	if progressed, err := r.Step(bg); !progressed || err != nil {
		t.Fatalf("second step: progressed %v, %v", progressed, err)
	}
	if got := left(); got != "new" {
		t.Fatalf("events left %s, want new", got)
	}
}
