package readmodels

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payledger/payledger/internal/secrets"
)

// MaxEndpoints is how many live webhook endpoints a merchant may have: each event fans out to
// every one, so the count bounds the work one event makes.
const MaxEndpoints = 20

// ErrTooManyEndpoints: the merchant has MaxEndpoints live endpoints already.
var ErrTooManyEndpoints = errors.New("too many webhook endpoints")

// Endpoint is a registered webhook endpoint (migration 024), without its secret.
type Endpoint struct {
	ID        uuid.UUID
	Merchant  string
	URL       string
	Events    []string
	CreatedAt time.Time
}

// Endpoints stores webhook endpoints, their event log, the fan-out of events to them and their
// delivery log. Secrets are sealed with the webhook keys' AES-256-GCM (SECRETS_KEY), the
// endpoint id as additional data.
type Endpoints struct {
	pool *pgxpool.Pool
	keys *secrets.WebhookKeys
}

// NewEndpoints returns the store on pool; keys seals and opens the endpoints' secrets.
func NewEndpoints(pool *pgxpool.Pool, keys *secrets.WebhookKeys) *Endpoints {
	return &Endpoints{pool: pool, keys: keys}
}

func endpointAAD(id uuid.UUID) string { return "webhook-endpoint:" + id.String() }

// Create stores an endpoint with its secret sealed. Errors: ErrTooManyEndpoints.
func (s *Endpoints) Create(ctx context.Context, merchant, url string, events []string, secret string, now time.Time) (Endpoint, error) {
	ep := Endpoint{ID: uuid.New(), Merchant: merchant, URL: url, Events: events, CreatedAt: now.UTC().Truncate(time.Microsecond)}
	nonce, ct, err := s.keys.Seal(endpointAAD(ep.ID), secret)
	if err != nil {
		return Endpoint{}, fmt.Errorf("seal endpoint secret: %w", err)
	}
	// The count and the insert run under a per-merchant lock held to commit: in READ COMMITTED,
	// concurrent creates each counted the others' uncommitted rows as absent and all inserted.
	var created bool
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('payledger webhook endpoints:' || $1::text, 0))`, merchant); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `INSERT INTO webhook_endpoints (id, merchant_wallet, url, events, secret_nonce, secret_ciphertext, created_at)
			SELECT $1, $2, $3, $4, $5, $6, $7
			WHERE (SELECT count(*) FROM webhook_endpoints WHERE merchant_wallet = $2 AND deleted_at IS NULL) < $8`,
			ep.ID, merchant, url, events, nonce, ct, ep.CreatedAt, MaxEndpoints)
		created = tag.RowsAffected() == 1
		return err
	})
	if err != nil {
		return Endpoint{}, fmt.Errorf("create webhook endpoint: %w", err)
	}
	if !created {
		return Endpoint{}, ErrTooManyEndpoints
	}
	return ep, nil
}

// PreviousSecretLife is how long an endpoint's secret keeps signing after a rotation replaced it
// (docs/webhooks.md): every delivery in that time carries both signatures, so a receiver can
// switch to the new secret without refusing a delivery.
const PreviousSecretLife = 24 * time.Hour

// RotateSecret makes secret merchant's endpoint id's current secret (sealed as Create seals) and
// its current one the previous, which signs until now + PreviousSecretLife; a previous secret
// from an earlier rotation is dropped (one is kept). It returns the endpoint and that expiry.
// Errors: ErrNotFound (another merchant's, or deleted).
//
// One UPDATE moves the sealed current secret (its additional data is the endpoint id, so it opens
// in either column) and sets the new: two rotations at once are serialised by its row lock, and
// the second reads the row the first wrote, so the pair is (second's, first's), never a mix.
func (s *Endpoints) RotateSecret(ctx context.Context, merchant string, id uuid.UUID, secret string, now time.Time) (Endpoint, time.Time, error) {
	nonce, ct, err := s.keys.Seal(endpointAAD(id), secret)
	if err != nil {
		return Endpoint{}, time.Time{}, fmt.Errorf("seal endpoint secret: %w", err)
	}
	expires := now.Add(PreviousSecretLife).UTC().Truncate(time.Microsecond)
	var ep Endpoint
	err = s.pool.QueryRow(ctx, `UPDATE webhook_endpoints SET previous_secret_nonce = secret_nonce, previous_secret_ciphertext = secret_ciphertext,
			previous_secret_expires_at = $5, secret_nonce = $3, secret_ciphertext = $4
		WHERE id = $1 AND merchant_wallet = $2 AND deleted_at IS NULL
		RETURNING id, merchant_wallet, url, events, created_at`, id, merchant, nonce, ct, expires).
		Scan(&ep.ID, &ep.Merchant, &ep.URL, &ep.Events, &ep.CreatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return Endpoint{}, time.Time{}, ErrNotFound
	}
	if err != nil {
		return Endpoint{}, time.Time{}, fmt.Errorf("rotate webhook endpoint secret: %w", err)
	}
	return ep, expires, nil
}

// List returns merchant's live endpoints, oldest first.
func (s *Endpoints) List(ctx context.Context, merchant string) ([]Endpoint, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, merchant_wallet, url, events, created_at FROM webhook_endpoints
		WHERE merchant_wallet = $1 AND deleted_at IS NULL ORDER BY created_at, id`, merchant)
	if err != nil {
		return nil, fmt.Errorf("list webhook endpoints: %w", err)
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (Endpoint, error) {
		var ep Endpoint
		err := r.Scan(&ep.ID, &ep.Merchant, &ep.URL, &ep.Events, &ep.CreatedAt)
		return ep, err
	})
}

// Get returns merchant's live endpoint id, or ErrNotFound (also for another merchant's).
func (s *Endpoints) Get(ctx context.Context, merchant string, id uuid.UUID) (Endpoint, error) {
	var ep Endpoint
	err := s.pool.QueryRow(ctx, `SELECT id, merchant_wallet, url, events, created_at FROM webhook_endpoints
		WHERE id = $1 AND merchant_wallet = $2 AND deleted_at IS NULL`, id, merchant).Scan(&ep.ID, &ep.Merchant, &ep.URL, &ep.Events, &ep.CreatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return Endpoint{}, ErrNotFound
	}
	if err != nil {
		return Endpoint{}, fmt.Errorf("read webhook endpoint: %w", err)
	}
	return ep, nil
}

// Signs says whether secret signs merchant's endpoint's deliveries now: its current secret, or
// the one a rotation replaced while that still signs. A kept creation or rotation answer is
// replayed only while its secret does (transport's keptCreationGone). Errors: ErrNotFound for a
// deleted endpoint or another merchant's.
func (s *Endpoints) Signs(ctx context.Context, merchant string, id uuid.UUID, secret string, now time.Time) (bool, error) {
	var k sealedSecrets
	err := s.pool.QueryRow(ctx, `SELECT `+sealedSecretsColumns+` FROM webhook_endpoints WHERE id = $1 AND merchant_wallet = $2 AND deleted_at IS NULL`,
		id, merchant).Scan(k.dest()...)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, ErrNotFound
	}
	if err != nil {
		return false, fmt.Errorf("read webhook endpoint secrets: %w", err)
	}
	live, err := s.open(id, k, now)
	if err != nil {
		return false, err
	}
	for _, l := range live.Secrets {
		if subtle.ConstantTimeCompare([]byte(l), []byte(secret)) == 1 {
			return true, nil
		}
	}
	return false, nil
}

// Delete retires merchant's endpoint: it receives nothing more (its pending messages fail), its
// delivery log stays. Errors: ErrNotFound (also for another merchant's).
func (s *Endpoints) Delete(ctx context.Context, merchant string, id uuid.UUID) error {
	var n int
	err := s.pool.QueryRow(ctx, `WITH del AS (
			UPDATE webhook_endpoints SET deleted_at = now() WHERE id = $1 AND merchant_wallet = $2 AND deleted_at IS NULL RETURNING id),
		stop AS (UPDATE webhook_endpoint_messages m SET state = 'failed' FROM del WHERE m.endpoint_id = del.id AND m.state = 'pending')
		SELECT count(*) FROM del`, id, merchant).Scan(&n)
	if err != nil {
		return fmt.Errorf("delete webhook endpoint: %w", err)
	}
	if n == 0 {
		return ErrNotFound
	}
	return nil
}

// NewEvent is an event to record in a merchant's event log and fan out to its endpoints.
type NewEvent struct {
	Key      string // makes recording once: the same key again records nothing
	Merchant string
	Type     string
	Data     any // one of the typed payloads (payloads.go), encoded as JSON
	At       time.Time
	// Endpoint, when set, limits the fan-out to this endpoint (webhook.test); otherwise every
	// live endpoint of the merchant whose filter takes Type gets a message.
	Endpoint *uuid.UUID
}

// eventsLock serialises the recording of events to commit order (see migration 024).
const eventsLock = `SELECT pg_advisory_xact_lock(hashtextextended('payledger webhook events', 0))`

// orderKey is what a message's receipt_id holds (migrations 043, 045): the event's receipt, else
// its subscription as "subscription:<id>" (subscription.charged / charge_failed carry no
// receiptId: each went out on its own, so a charge_failed retried after a later period's charged
// reached the endpoint last, and a receiver keeping the subscription's last outcome believed it
// failing), else none (not held). No receipt id starts with "subscription:" (they are rcpt_… or
// m<12 hex>_…), so the two never share a key.
const orderKey = `coalesce(data->>'receiptId', 'subscription:' || (data->>'subscriptionId'))`

// insertEvents records the events and fans each out to the endpoints that take it. A message
// carries its event's order key (orderKey: its receipt or subscription; none for a test event) and
// log position, which order a receipt's (a subscription's) messages to one endpoint
// (ClaimMessages, migration 043); one queued behind an earlier message waiting for its retry is
// due with that retry, not before (CompleteMessage).
//
// A receipt.created is recorded by its own projector, which can commit after the receipts
// projector recorded the receipt's first status change: its message then sorted after that
// change's, and the endpoint learned of the receipt's pending (or paid) before it learned the
// receipt existed. Its message takes a place before the receipt's pending messages to the
// endpoint (one less than the first) and is due at once, so those not yet sent wait for it; one
// already sent or in flight cannot be called back.
const insertEvents = `WITH ins AS (
		INSERT INTO webhook_events (seq, id, event_key, merchant_wallet, type, data, occurred_at)
		SELECT nextval('webhook_events_seq'), u.id, u.k, u.m, u.t, u.d, u.at
		FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::jsonb[], $6::timestamptz[]) WITH ORDINALITY AS u(id, k, m, t, d, at, n)
		ORDER BY u.n
		ON CONFLICT (event_key) DO NOTHING
		RETURNING id, seq, merchant_wallet, type, CASE WHEN type <> '` + EventWebhookTest + `' THEN ` + orderKey + ` END AS receipt_id)
	INSERT INTO webhook_endpoint_messages (endpoint_id, event_id, receipt_id, event_seq, next_attempt_at)
	SELECT e.id, ins.id, ins.receipt_id, CASE WHEN ins.type = '` + EventReceiptCreated + `' THEN least(ins.seq, (SELECT min(o.event_seq) - 1
			FROM webhook_endpoint_messages o WHERE o.endpoint_id = e.id AND o.receipt_id = ins.receipt_id AND o.state = 'pending')) ELSE ins.seq END,
		CASE WHEN ins.type = '` + EventReceiptCreated + `' THEN now() ELSE greatest(now(), (SELECT max(o.next_attempt_at) FROM webhook_endpoint_messages o
			WHERE o.endpoint_id = e.id AND o.receipt_id = ins.receipt_id AND o.state = 'pending' AND o.receipt_id IS NOT NULL)) END
	FROM ins JOIN webhook_endpoints e ON e.merchant_wallet = ins.merchant_wallet AND e.deleted_at IS NULL
		LEFT JOIN unnest($8::uuid[], $7::uuid[]) AS t(ev, ep) ON t.ev = ins.id
	WHERE CASE WHEN t.ev IS NULL THEN '*' = ANY(e.events) OR ins.type = ANY(e.events) ELSE e.id = t.ep END
	ON CONFLICT DO NOTHING`

// QueueEvents queues into batch, which must run in a transaction (the receipts projector's), the
// recording of events and their fan-out to endpoints, under the lock that keeps the log's order
// its commit order. It returns an error only for data that does not encode.
func QueueEvents(batch *pgx.Batch, events []NewEvent) error {
	if len(events) == 0 {
		return nil
	}
	n := len(events)
	// The ids are pgtype.UUIDs, which pgx encodes at once: a uuid.UUID goes through its
	// driver.Valuer, a string and a failed plan per element (issue 38).
	ids, keys, merchants, types, at := make([]pgtype.UUID, n), make([]string, n), make([]string, n), make([]string, n), make([]time.Time, n)
	data := make([][]byte, n)        // JSON text, cast to jsonb by the statement
	var only, targeted []pgtype.UUID // endpoint-limited events and their endpoints
	for i, e := range events {
		b, err := json.Marshal(e.Data)
		if err != nil {
			return fmt.Errorf("encode %s event: %w", e.Type, err)
		}
		ids[i], keys[i], merchants[i], types[i], data[i], at[i] = pgtype.UUID{Bytes: uuid.New(), Valid: true}, e.Key, e.Merchant, e.Type, b, e.At
		if e.Endpoint != nil {
			targeted, only = append(targeted, ids[i]), append(only, pgtype.UUID{Bytes: *e.Endpoint, Valid: true})
		}
	}
	batch.Queue(eventsLock)
	batch.Queue(insertEvents, ids, keys, merchants, types, data, at, only, targeted)
	return nil
}

// Record records events in their own transaction (events that no projector records: subscription
// charges, test events).
func (s *Endpoints) Record(ctx context.Context, events ...NewEvent) error {
	return RecordEvents(ctx, s.pool, events...)
}

// RecordEvents is Record on pool.
func RecordEvents(ctx context.Context, pool *pgxpool.Pool, events ...NewEvent) error {
	b := &pgx.Batch{}
	if err := QueueEvents(b, events); err != nil {
		return err
	}
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error { return tx.SendBatch(ctx, b).Close() })
	if err != nil {
		return fmt.Errorf("record webhook events: %w", err)
	}
	return nil
}

// StoredEvent is a recorded event.
type StoredEvent struct {
	Seq        int64
	ID         uuid.UUID
	Type       string
	Data       json.RawMessage
	OccurredAt time.Time
}

// EventsAfter returns up to limit of merchant's events after seq, oldest first (the stream).
func (s *Endpoints) EventsAfter(ctx context.Context, merchant string, seq int64, limit int) ([]StoredEvent, error) {
	rows, err := s.pool.Query(ctx, `SELECT seq, id, type, data, occurred_at FROM webhook_events
		WHERE merchant_wallet = $1 AND seq > $2 ORDER BY seq LIMIT $3`, merchant, seq, limit)
	if err != nil {
		return nil, fmt.Errorf("read webhook events: %w", err)
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (StoredEvent, error) {
		var e StoredEvent
		err := r.Scan(&e.Seq, &e.ID, &e.Type, &e.Data, &e.OccurredAt)
		return e, err
	})
}

// LogEnd is the newest seq of the whole event log, every merchant's (0 when empty): no stream
// ever sent a later id, since only committed events are read and the log is pruned from its start
// only (PruneEvents: a log pruned to its end still ends at the last position pruned).
func (s *Endpoints) LogEnd(ctx context.Context) (int64, error) {
	var seq int64
	if err := s.pool.QueryRow(ctx, `SELECT greatest((SELECT coalesce(max(seq), 0) FROM webhook_events),
		(SELECT coalesce(max(through_seq), 0) FROM webhook_events_pruned))`).Scan(&seq); err != nil {
		return 0, fmt.Errorf("read webhook events: %w", err)
	}
	return seq, nil
}

// LastSeq is the newest seq of merchant's events (0 when none): a stream without Last-Event-ID
// starts after it.
func (s *Endpoints) LastSeq(ctx context.Context, merchant string) (int64, error) {
	var seq int64
	err := s.pool.QueryRow(ctx, `SELECT coalesce(max(seq), 0) FROM webhook_events WHERE merchant_wallet = $1`, merchant).Scan(&seq)
	if err != nil {
		return 0, fmt.Errorf("read webhook events: %w", err)
	}
	return seq, nil
}

// EventRetention is how long the merchants' event log and the webhook delivery tables are kept
// (webhooks.Retention prunes them; docs/webhooks.md, "Retention"): 30 days, as Stripe keeps
// events.
const EventRetention = 30 * 24 * time.Hour

// PrunedThrough is the newest log position pruned (0: none): the events after a stream id before
// it may be gone (PruneEvents).
func (s *Endpoints) PrunedThrough(ctx context.Context) (int64, error) {
	var seq int64
	if err := s.pool.QueryRow(ctx, `SELECT coalesce(max(through_seq), 0) FROM webhook_events_pruned`).Scan(&seq); err != nil {
		return 0, fmt.Errorf("read webhook events: %w", err)
	}
	return seq, nil
}

// Pruned is what one PruneEvents (or PruneNotifications) did.
type Pruned struct {
	Rows int // events (notifications, subscription webhooks) deleted
	// Through is the newest log position pruned after the call (events only).
	Through int64
	// Blocked: the oldest event left is older than the cutoff but still owed to an endpoint (a
	// pending message): the log is pruned no further until it is delivered or given up.
	Blocked bool
}

// retentionLock keeps the pruning to one instance at a time (the others' steps do nothing).
const retentionLock = `SELECT pg_try_advisory_xact_lock(hashtextextended('payledger webhook retention', 0))`

// PruneEvents deletes up to limit events recorded before cutoff from the start of the event log
// (seq order), with their endpoint messages and attempts, and records the newest position pruned
// (PrunedThrough). It stops at the first event recorded since cutoff or still owed to an endpoint
// (a pending message; Blocked), so the log left is always a suffix: a stream id at or after
// PrunedThrough misses nothing. Run by one instance at a time: a call while another prunes does
// nothing.
func (s *Endpoints) PruneEvents(ctx context.Context, cutoff time.Time, limit int) (Pruned, error) {
	var out Pruned
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var mine bool
		if err := tx.QueryRow(ctx, retentionLock).Scan(&mine); err != nil || !mine {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT v.seq, v.id, v.recorded_at < $1,
				EXISTS (SELECT 1 FROM webhook_endpoint_messages m WHERE m.event_id = v.id AND m.state = 'pending')
			FROM webhook_events v ORDER BY v.seq LIMIT $2 FOR UPDATE OF v`, cutoff, limit)
		if err != nil {
			return err
		}
		var ids []uuid.UUID
		var through int64
		for rows.Next() {
			var seq int64
			var id uuid.UUID
			var old, owed bool
			if err := rows.Scan(&seq, &id, &old, &owed); err != nil {
				rows.Close()
				return err
			}
			if !old || owed {
				out.Blocked = old && owed
				break
			}
			ids, through = append(ids, id), seq
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if len(ids) > 0 {
			b := &pgx.Batch{}
			b.Queue(`DELETE FROM webhook_endpoint_attempts WHERE event_id = ANY($1)`, ids)
			b.Queue(`DELETE FROM webhook_endpoint_messages WHERE event_id = ANY($1)`, ids)
			b.Queue(`DELETE FROM webhook_events WHERE id = ANY($1)`, ids)
			b.Queue(`UPDATE webhook_events_pruned SET through_seq = greatest(through_seq, $1), pruned_at = now()`, through)
			if err := tx.SendBatch(ctx, b).Close(); err != nil {
				return err
			}
		}
		out.Rows = len(ids)
		return tx.QueryRow(ctx, `SELECT coalesce(max(through_seq), 0) FROM webhook_events_pruned`).Scan(&out.Through)
	})
	if err != nil {
		return Pruned{}, fmt.Errorf("prune webhook events: %w", err)
	}
	return out, nil
}

// PruneDeletedEndpoints deletes up to limit endpoints deleted before cutoff once none of their
// messages and attempts remain (PruneEvents removes those with their events), oldest deletion
// first. A deleted endpoint kept its row for ever, so a create/delete loop grew webhook_endpoints
// without end. One deleted before cutoff with messages left (the log held by an event still owed)
// waits for them. Run by one instance at a time: a call while another prunes does nothing.
func (s *Endpoints) PruneDeletedEndpoints(ctx context.Context, cutoff time.Time, limit int) (Pruned, error) {
	var out Pruned
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var mine bool
		if err := tx.QueryRow(ctx, retentionLock).Scan(&mine); err != nil || !mine {
			return err
		}
		// The messages' and attempts' foreign keys would refuse the delete of an endpoint they
		// still name; NOT EXISTS leaves those for a later step instead of failing this one.
		tag, err := tx.Exec(ctx, `DELETE FROM webhook_endpoints d WHERE d.id IN (
			SELECT e.id FROM webhook_endpoints e
			WHERE e.deleted_at < $1
				AND NOT EXISTS (SELECT 1 FROM webhook_endpoint_messages m WHERE m.endpoint_id = e.id)
				AND NOT EXISTS (SELECT 1 FROM webhook_endpoint_attempts a WHERE a.endpoint_id = e.id)
			ORDER BY e.deleted_at LIMIT $2 FOR UPDATE SKIP LOCKED)`, cutoff, limit)
		out.Rows = int(tag.RowsAffected())
		return err
	})
	if err != nil {
		return Pruned{}, fmt.Errorf("prune deleted webhook endpoints: %w", err)
	}
	return out, nil
}
