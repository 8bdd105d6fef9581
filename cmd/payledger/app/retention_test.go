package app_test

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/cmd/payledger/app"
	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/migrations/pgtest"
)

// TestServicePrunesWebhooksPastTheirRetention: the service serve builds runs the webhook
// retention worker (webhooks.Retention was written, but nothing ran it, so the tables still grew
// for ever): a delivered subscription webhook 40 days old goes, a pending one of the same age and
// a new one stay, and the worker is on /healthz's list.
func TestServicePrunesWebhooksPastTheirRetention(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.Pool(t)
	if _, err := pool.Exec(ctx, `INSERT INTO subscription_webhooks (id, idempotency_key, event, subscription_id, merchant_wallet, url, payload, state, created_at)
		VALUES (gen_random_uuid(), 's-old', 'subscription.charged', 'sub_1', '0xmerchant', 'https://example.com', '{}', 'delivered', now() - interval '40 days'),
			(gen_random_uuid(), 's-owed', 'subscription.charged', 'sub_2', '0xmerchant', 'https://example.com', '{}', 'pending', now() - interval '40 days'),
			(gen_random_uuid(), 's-new', 'subscription.charged', 'sub_3', '0xmerchant', 'https://example.com', '{}', 'delivered', now())`); err != nil {
		t.Fatal(err)
	}
	store := postgres.New(pool)
	svc, err := app.Build(ctx, app.Config{Store: store, Pool: pool, Now: time.Now, Log: zerolog.Nop(), Metrics: noMetrics{},
		SecretsKey: bytes.Repeat([]byte{7}, 32), JournalPath: filepath.Join(t.TempDir(), "journal.jsonl")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = svc.Journal.Close() })
	runWorkers(t, svc)

	left := func() (keys []string) {
		rows, err := pool.Query(ctx, `SELECT idempotency_key FROM subscription_webhooks ORDER BY idempotency_key`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var k string
			_ = rows.Scan(&k)
			keys = append(keys, k)
		}
		return keys
	}
	wait.Until(t, "the 40-day-old delivered webhook pruned", 30*time.Second, func() bool { return len(left()) == 2 })
	if got := left(); got[0] != "s-new" || got[1] != "s-owed" {
		t.Fatalf("kept %v; want s-new and s-owed", got)
	}
	listed := false
	for _, w := range svc.Health.Workers() {
		listed = listed || w.Name == "webhook retention"
	}
	if !listed {
		t.Fatal("the webhook retention worker is not on /healthz's list")
	}
}
