package migrations_test

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payledger/payledger/internal/secrets"
	"github.com/payledger/payledger/readmodels"
)

// Migration 043 on a database with endpoint messages: the pending messages get their event's
// receipt and log position, so a receipt's pending and paid queued before the upgrade go out in
// order after it (only the older is claimed); delivered ones and a test event are left unordered.
func TestMigration043OrdersThePendingMessages(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dbURL, conn, m := migratedTo(t, 42)
	ep := uuid.New()
	if _, err := conn.Exec(ctx, `INSERT INTO webhook_endpoints (id, merchant_wallet, url, events, secret_nonce, secret_ciphertext, created_at)
		VALUES ($1, '0xm', 'https://example.com/hook', '{*}', '\x00', '\x00', now())`, ep); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `WITH ev AS (
			INSERT INTO webhook_events (seq, id, event_key, merchant_wallet, type, data, occurred_at)
			SELECT nextval('webhook_events_seq'), gen_random_uuid(), k, '0xm', t, d::jsonb, now()
			FROM (VALUES ('old', 'receipt.status_updated', '{"receiptId":"r1","status":"generated"}', 'delivered'),
				('pending', 'receipt.status_updated', '{"receiptId":"r1","status":"pending"}', 'pending'),
				('paid', 'receipt.status_updated', '{"receiptId":"r1","status":"paid"}', 'pending'),
				('test', 'webhook.test', '{"receiptId":"r1"}', 'pending')) AS v(k, t, d, s)
			ORDER BY k = 'old' DESC, k = 'pending' DESC, k = 'paid' DESC
			RETURNING id, event_key)
		INSERT INTO webhook_endpoint_messages (endpoint_id, event_id, state, next_attempt_at)
		SELECT $1, ev.id, CASE WHEN ev.event_key = 'old' THEN 'delivered' ELSE 'pending' END, now() - interval '1 minute' FROM ev`, ep); err != nil {
		t.Fatal(err)
	}
	if err := m.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	var filled, unfilled int
	if err := conn.QueryRow(ctx, `SELECT count(*) FILTER (WHERE receipt_id = 'r1' AND event_seq IS NOT NULL),
		count(*) FILTER (WHERE receipt_id IS NULL) FROM webhook_endpoint_messages`).Scan(&filled, &unfilled); err != nil {
		t.Fatal(err)
	}
	if filled != 2 || unfilled != 2 {
		t.Fatalf("after the upgrade %d messages carry their receipt and %d none, want 2 (the pending status changes) and 2", filled, unfilled)
	}
	pool, err := pgxpool.New(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	keys, err := secrets.NewWebhookKeys(pool, bytes.Repeat([]byte{9}, 32))
	if err != nil {
		t.Fatal(err)
	}
	claimed, err := readmodels.NewEndpoints(pool, keys).ClaimMessages(ctx, 10, 8, nil, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range claimed {
		var d struct{ Status string }
		_ = json.Unmarshal(c.Data, &d)
		got = append(got, c.Type+"/"+d.Status)
	}
	if len(got) != 2 || !slices.Contains(got, "receipt.status_updated/pending") || !slices.Contains(got, "webhook.test/") {
		t.Fatalf("claimed %v after the upgrade, want r1's pending and the test event, not r1's paid behind its pending", got)
	}
}
