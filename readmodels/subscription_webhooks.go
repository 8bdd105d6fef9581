package readmodels

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payledger/payledger/internal/secrets"
)

// SubscriptionWebhooks is the outbox of subscription charge webhooks (migration 017).
type SubscriptionWebhooks struct{ pool *pgxpool.Pool }

// NewSubscriptionWebhooks returns the outbox on pool.
func NewSubscriptionWebhooks(pool *pgxpool.Pool) *SubscriptionWebhooks {
	return &SubscriptionWebhooks{pool: pool}
}

// Queue queues event for merchant when its shop config has a webhookUrl; key makes it once.
func (w *SubscriptionWebhooks) Queue(ctx context.Context, event, key, subscriptionID, merchant string, payload map[string]any) error {
	b, err := json.Marshal(payload)
	if err != nil {
		return err
	}
	// The same event goes to the merchant's event log (webhook endpoints, the stream), in the
	// same transaction.
	data := map[string]any{"event": event, "idempotencyKey": key}
	for k, v := range payload {
		data[k] = v
	}
	logged := &pgx.Batch{}
	if err := QueueEvents(logged, []NewEvent{{Key: key, Merchant: merchant, Type: event, Data: data, At: time.Now()}}); err != nil {
		return err
	}
	err = pgx.BeginFunc(ctx, w.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO subscription_webhooks (id, idempotency_key, event, subscription_id, merchant_wallet, url, payload)
			SELECT $1, $2, $3, $4, $5, config->>'webhookUrl', $6 FROM shop_configs
			WHERE wallet = $5 AND coalesce(config->>'webhookUrl', '') <> ''
			ON CONFLICT (idempotency_key) DO NOTHING`, uuid.New(), key, event, subscriptionID, merchant, b); err != nil {
			return err
		}
		return tx.SendBatch(ctx, logged).Close()
	})
	if err != nil {
		return fmt.Errorf("queue subscription webhook: %w", err)
	}
	return nil
}

// SubscriptionWebhook is a claimed notification.
type SubscriptionWebhook struct {
	ID       uuid.UUID
	Key      string
	Event    string
	Merchant string
	// URL is the shop's webhookUrl now, not when the charge was queued: a merchant that moved its
	// receiver gets the retries there, and "" (stopped) sends nothing more.
	URL      string
	Brand    string // the shop's partner brand key now ("" for none): its X-<Brand>-* headers
	Payload  map[string]any
	Attempts int
	Created  time.Time
}

// notHeld is true of a notification (s) with no earlier pending notification of its subscription
// (queued before it: created_at, then id; the partial index of migration 045). A subscription's
// outcomes go out in the order they were queued: each was sent on its own schedule, so a
// charge_failed whose first attempt failed reached the receiver after the next period's charged
// (or a charged after the charge_failed that ended the subscription), and a receiver keeping the
// subscription's last outcome kept the wrong one. A notification given up (failed, after 3 days)
// or delivered holds nothing back.
const notHeld = `NOT EXISTS (SELECT 1 FROM subscription_webhooks o WHERE o.subscription_id = s.subscription_id
	AND o.state = 'pending' AND (o.created_at, o.id) < (s.created_at, s.id))`

// Claim leases up to limit due notifications, oldest due first (several senders never take the
// same one), a subscription's in the order they were queued (notHeld).
func (w *SubscriptionWebhooks) Claim(ctx context.Context, limit int, lease time.Duration) ([]SubscriptionWebhook, error) {
	return w.claim(ctx, `SELECT id FROM subscription_webhooks s WHERE state = 'pending' AND next_attempt_at <= now()
			AND (lease_until IS NULL OR lease_until < now()) AND `+notHeld+` ORDER BY next_attempt_at LIMIT $2 FOR UPDATE SKIP LOCKED`,
		lease, limit)
}

// ClaimShared is Claim taking at most perMerchant of one merchant less what the caller already has
// in flight for it (busy, by merchant wallet): taken oldest due first whoever they were for, one
// merchant's billing run to a hanging receiver filled every attempt in flight and held every
// other merchant's charge webhooks for a timeout per claim. See claimFair for how the candidates
// are found.
func (w *SubscriptionWebhooks) ClaimShared(ctx context.Context, limit, perMerchant int, busy map[string]int, lease time.Duration) ([]SubscriptionWebhook, error) {
	return claimFair(limit, perMerchant, busy, func(n SubscriptionWebhook) string { return n.Merchant },
		func(limit int, merchants []string, counts []int32, capped []string) ([]SubscriptionWebhook, error) {
			return w.claim(ctx, pickSubscriptionShared, lease, limit, merchants, counts, perMerchant, capped, limit*fairWindow)
		})
}

// pickSubscriptionShared picks ClaimShared's round of claimFair: a window of $7 candidates, none
// of a merchant in $6, at most $5 less what $3/$4 say is in flight of one merchant, $2 in all.
const pickSubscriptionShared = `WITH candidates AS MATERIALIZED (
			SELECT id, merchant_wallet, next_attempt_at FROM subscription_webhooks s
			WHERE state = 'pending' AND next_attempt_at <= now() AND (lease_until IS NULL OR lease_until < now())
			  AND NOT (merchant_wallet = ANY($6::text[])) AND ` + notHeld + `
			ORDER BY next_attempt_at LIMIT $7 FOR UPDATE SKIP LOCKED)
		SELECT id FROM (SELECT c.id, c.next_attempt_at, coalesce(b.n, 0) AS busy,
				row_number() OVER (PARTITION BY c.merchant_wallet ORDER BY c.next_attempt_at) AS r
			FROM candidates c LEFT JOIN unnest($3::text[], $4::int[]) AS b(m, n) ON b.m = c.merchant_wallet) ranked
		WHERE r <= $5 - busy ORDER BY next_attempt_at LIMIT $2`

// claim leases the notifications pick selects ($1 is the lease; more are pick's own parameters).
func (w *SubscriptionWebhooks) claim(ctx context.Context, pick string, lease time.Duration, more ...any) ([]SubscriptionWebhook, error) {
	rows, err := w.pool.Query(ctx, `UPDATE subscription_webhooks w SET lease_until = now() + make_interval(secs => $1)
		WHERE id IN (`+pick+`)
		RETURNING id, idempotency_key, event, merchant_wallet,
			coalesce((SELECT c.config->>'webhookUrl' FROM shop_configs c WHERE c.wallet = w.merchant_wallet), ''),
			coalesce((SELECT c.config->>'brandKey' FROM shop_configs c WHERE c.wallet = w.merchant_wallet), ''),
			payload, attempts, created_at`, append([]any{lease.Seconds()}, more...)...)
	if err != nil {
		return nil, fmt.Errorf("claim subscription webhooks: %w", err)
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (SubscriptionWebhook, error) {
		var n SubscriptionWebhook
		var raw []byte
		if err := r.Scan(&n.ID, &n.Key, &n.Event, &n.Merchant, &n.URL, &n.Brand, &raw, &n.Attempts, &n.Created); err != nil {
			return n, err
		}
		return n, json.Unmarshal(raw, &n.Payload)
	})
}

// Complete records an attempt: delivered, or pending again at next, or failed (given up).
func (w *SubscriptionWebhooks) Complete(ctx context.Context, id uuid.UUID, state string, status *int, errText string, next time.Time) error {
	_, err := w.pool.Exec(ctx, `UPDATE subscription_webhooks SET state = $2, attempts = attempts + 1, last_status = $3,
			last_error = nullif($4, ''), next_attempt_at = $5, lease_until = NULL,
			delivered_at = CASE WHEN $2 = 'delivered' THEN now() END
		WHERE id = $1`, id, state, status, errText, next)
	if err != nil {
		return fmt.Errorf("complete subscription webhook: %w", err)
	}
	return nil
}

// Release gives up the lease on a claimed notification without recording an attempt (the
// sender stopped before the attempt could tell anything): it is due again at once, as it was.
func (w *SubscriptionWebhooks) Release(ctx context.Context, id uuid.UUID) error {
	if _, err := w.pool.Exec(ctx, `UPDATE subscription_webhooks SET lease_until = NULL WHERE id = $1 AND state = 'pending'`, id); err != nil {
		return fmt.Errorf("release subscription webhook: %w", err)
	}
	return nil
}

// ErrNoSigningKey: the merchant never called the API with a key a receipt captured.
var ErrNoSigningKey = errors.New("no API key to sign with: the merchant has no receipt created with its key")

// MerchantSigningKey is the API key captured by the merchant's newest receipt that has one:
// subscription webhooks are signed like receipt webhooks, with the key the merchant calls the
// API with (a rotated key signs once a receipt was created with it).
func (w *SubscriptionWebhooks) MerchantSigningKey(ctx context.Context, keys *secrets.WebhookKeys, merchant string) (string, error) {
	var id string
	err := w.pool.QueryRow(ctx, `SELECT k.receipt_id FROM receipt_webhook_keys k JOIN receipts r ON r.receipt_id = k.receipt_id
		WHERE r.merchant_wallet = $1 ORDER BY k.created_at DESC LIMIT 1`, merchant).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", ErrNoSigningKey
	}
	if err != nil {
		return "", fmt.Errorf("merchant signing key: %w", err)
	}
	return keys.Get(ctx, id)
}

// Prune deletes up to limit subscription webhooks closed (delivered or failed) and queued before
// cutoff, oldest first; a pending one is never deleted.
func (w *SubscriptionWebhooks) Prune(ctx context.Context, cutoff time.Time, limit int) (Pruned, error) {
	tag, err := w.pool.Exec(ctx, `DELETE FROM subscription_webhooks WHERE id IN (
		SELECT id FROM subscription_webhooks WHERE state <> 'pending' AND created_at < $1 ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED)
		AND state <> 'pending'`, cutoff, limit)
	if err != nil {
		return Pruned{}, fmt.Errorf("prune subscription webhooks: %w", err)
	}
	return Pruned{Rows: int(tag.RowsAffected())}, nil
}
