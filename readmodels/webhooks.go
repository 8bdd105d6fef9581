package readmodels

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore/groupcommit"
)

// Notification states.
const (
	NotePending   = "pending"   // due for its first attempt
	NoteRetrying  = "retrying"  // the automatic retry is scheduled
	NoteMarked    = "marked"    // both attempts failed: pending-delivery marker, reconciliation retries
	NoteDelivered = "delivered" // a 2xx answer
	NoteFailed    = "failed"    // reconciliation gave up
)

// StatusChangeKey is what records a receipt's status change once, in the webhook outbox
// (queued_key) and in the merchants' event log (event_key): the spec's idempotency key and the
// receipt's version at the change. The spec's key alone names a status, not a change: a receipt
// that returns to a status it had (paid, a partial refund requested, then processed: paid again;
// failed, pending, failed again) has the same key again, and a key recorded once recorded nothing
// more, so the merchant's last notification (receipt webhook and endpoint alike) said
// refund_requested about a paid receipt (DESIGN 10: the last one carries the final status). The
// version is the log's, so a replay computes the same key. What is sent still carries the spec's
// key (SpecKey): a receiver that deduplicates on it treats the return as the status it had.
func StatusChangeKey(st receipt.State, version uint64) string {
	return st.IdempotencyKey() + "@" + strconv.FormatUint(version, 10)
}

// SpecKey is the spec's idempotency key within a key StatusChangeKey made (a key recorded before
// the version was added is returned as it is).
func SpecKey(key string) string {
	i := strings.LastIndexByte(key, '@')
	if i < 0 || i == len(key)-1 || strings.Trim(key[i+1:], "0123456789") != "" {
		return key
	}
	return key[:i]
}

// QueueNotification queues (or re-aims the open) notification of a receipt's status change; it
// is sent inside the receipts projector's transaction.
//
// One INSERT ... ON CONFLICT on the open-notification index (webhook_notifications_open), not an
// UPDATE of the open row plus an INSERT guarded by NOT EXISTS: in READ COMMITTED, the guard reads
// the statement's snapshot while the UPDATE re-reads the row it waited for. A dispatcher that
// recorded the open row as delivered between the two (it sent the older status) left the UPDATE
// with no row and the guard still seeing one, and the newer status was never queued (issue 36:
// a merchant told "failed" about a paid receipt). ON CONFLICT either re-aims the row that is still
// open when it locks it or inserts a new one. A key already queued (a replay) queues nothing; key
// is the change's StatusChangeKey, so a status the receipt returns to is queued again.
func QueueNotification(batch *pgx.Batch, receiptID, merchant, url, key string) {
	batch.Queue(`INSERT INTO webhook_notifications (id, receipt_id, merchant_wallet, url, queued_key, state, next_attempt_at, created_at, updated_at)
		SELECT $3, $1, $4, $5, $2, 'pending', now(), now(), now()
		WHERE NOT EXISTS (SELECT 1 FROM webhook_notifications WHERE queued_key = $2)
		ON CONFLICT (receipt_id) WHERE state IN ('pending', 'retrying', 'marked') DO UPDATE
			SET queued_key = EXCLUDED.queued_key, state = 'pending', next_attempt_at = now(), delivery_id = NULL,
				attempts = 0, marked_at = NULL, updated_at = now()`, receiptID, key, uuid.New(), merchant, url)
}

// Claimed is a notification a dispatcher holds a lease on.
type Claimed struct {
	ID         uuid.UUID
	ReceiptID  string
	Merchant   string
	URL        string
	QueuedKey  string
	State      string
	DeliveryID *uuid.UUID
	Attempts   int
	MarkedAt   *time.Time
	Lease      uuid.UUID
	ClaimedAt  time.Time // the database's clock when the claim was made
	// StateJSON is the receipt's read-model state at claim time, read in the same snapshot as
	// QueuedKey: the projector writes it in the same transaction that queues (or re-aims) the
	// notification, so it is never older than the change QueuedKey names.
	StateJSON []byte
	// KeyNonce and KeySealed are the encrypted signing key (nil when none was captured).
	KeyNonce, KeySealed []byte
}

// Outbox is the dispatcher's view of the webhook outbox.
type Outbox struct {
	pool      *pgxpool.Pool
	completes *groupcommit.Group[completion, struct{}]
}

// completion is one delivery attempt to record.
type completion struct {
	c   Claimed
	a   Attempt
	out Outcome
}

// NewOutbox returns the outbox on pool.
func NewOutbox(pool *pgxpool.Pool) *Outbox {
	o := &Outbox{pool: pool}
	// Concurrent senders record their attempts in shared transactions: one commit for many.
	o.completes = &groupcommit.Group[completion, struct{}]{Slots: 2, MaxSize: 256, Flush: o.flushCompletes}
	return o
}

// Claim leases up to limit due notifications in states (FOR UPDATE SKIP LOCKED, so several
// dispatchers never take the same one). With ignoreSchedule, due time is not checked.
//
// The claimed QueuedKey is the one the notification had in the statement's snapshot, the
// snapshot the receipt's state is read in. The locked row itself can be newer: a projector
// transaction that re-aimed it (failed -> paid) and committed after the snapshot was taken is
// what the lock returns, while the receipt's state is still the snapshot's (failed). Claimed with
// the newer key, the older state would be sent and the notification completed as delivered. With
// the snapshot's key, Complete sees the re-aim and leaves the notification pending for the new
// status.
func (o *Outbox) Claim(ctx context.Context, states []string, ignoreSchedule bool, limit int, lease time.Duration) ([]Claimed, error) {
	return o.claim(ctx, states, ignoreSchedule, time.Time{}, limit, lease, pickDue)
}

// ClaimMarked leases up to limit notifications with the pending-delivery marker for one
// reconciliation run: those due, or all of them with all. A run after its first claim passes
// that claim's ClaimedAt as run: a notification attempted since (in this run, or by another
// instance meanwhile) is not claimed again, so a run that keeps failing still ends, each
// notification tried at most once.
func (o *Outbox) ClaimMarked(ctx context.Context, all bool, run time.Time, limit int, lease time.Duration) ([]Claimed, error) {
	return o.claim(ctx, []string{NoteMarked}, all, run, limit, lease, pickDue)
}

// ClaimShared is Claim of the workers (pending, retrying and marked notifications when due), oldest
// due first but at most perMerchant of one merchant less what the caller already has in flight for
// it (busy): taken oldest first whoever they were for, one merchant's backlog to a hanging receiver
// filled every attempt in flight and held every other merchant's webhooks for a timeout per claim.
// See claimFair for how the candidates are found.
//
// Marked notifications (both first attempts failed) are claimed here once their backoff is due,
// under a share of the same size (below): claimed only by the scheduled reconciliation
// (ClaimMarked, oldest due first, no share), one merchant's backlog to a hanging receiver (10,000
// due) held every other merchant's marked retries for about 25 minutes.
//
// The share is per merchant and class (ShareKey): a merchant's marked notifications and its others
// each have perMerchant places. Within it, one receiver of the merchant (ReceiverKey: the class
// and the webhook URL's origin) has at most perReceiver (less than perMerchant): a merchant's
// backlog to a hanging receiver leaves places to its other receivers. With one share per merchant
// and class, a backlog of first attempts to a hanging receiver held the merchant's first attempts
// to its other receiver for a timeout each. busy counts both keys, as ShareKeys names them.
func (o *Outbox) ClaimShared(ctx context.Context, limit, perMerchant, perReceiver int, busy map[string]int, lease time.Duration) ([]Claimed, error) {
	shareOf := func(k string) int {
		if strings.Contains(k, receiverShare) {
			return perReceiver
		}
		return perMerchant
	}
	return claimFairKeys(limit, shareOf, busy, func(c Claimed) []string { return ShareKeys(c.Merchant, c.State, c.URL) },
		func(limit int, keys []string, counts []int32, capped []string) ([]Claimed, error) {
			return o.claim(ctx, []string{NotePending, NoteRetrying, NoteMarked}, false, time.Time{}, limit, lease, pickShared,
				keys, counts, perMerchant, capped, limit*fairWindow, perReceiver)
		})
}

// pickDue picks the claim's notifications oldest due first ($1 states, $2 ignore the schedule,
// $3 limit, $6 not updated since).
const pickDue = `WITH claimed AS (
			UPDATE webhook_notifications n SET lease_until = now() + make_interval(secs => $4), lease_token = $5
			WHERE id IN (SELECT id FROM webhook_notifications
				WHERE state = ANY($1) AND ($2 OR next_attempt_at <= now()) AND (lease_until IS NULL OR lease_until < now())
				  AND ($6::timestamptz IS NULL OR updated_at < $6)
				ORDER BY next_attempt_at LIMIT $3 FOR UPDATE SKIP LOCKED)`

// pickShared is pickDue's claim (claimFair's round) over a window of $11 candidates, none of a
// share key (ShareKey: merchant, marked or not) or receiver key (ReceiverKey) in $10: at most $12
// of one receiver less what $7/$8 say is in flight of its key, then at most $9 of one share key
// less what is in flight of it. The states are also literal so the due index's predicate
// (webhook_notifications_due: the three open states) is implied; both keys are computed from the
// row the index scan fetches (the merchant and the URL), as the merchant alone was.
const pickShared = `WITH candidates AS MATERIALIZED (
			SELECT id, ` + shareKeySQL + ` AS share_key, ` + receiverKeySQL + ` AS receiver_key, next_attempt_at FROM webhook_notifications
			WHERE state IN ('pending', 'retrying', 'marked') AND state = ANY($1) AND ($2 OR next_attempt_at <= now())
			  AND (lease_until IS NULL OR lease_until < now()) AND ($6::timestamptz IS NULL OR updated_at < $6)
			  AND NOT (` + shareKeySQL + ` = ANY($10::text[])) AND NOT (` + receiverKeySQL + ` = ANY($10::text[]))
			ORDER BY next_attempt_at LIMIT $11 FOR UPDATE SKIP LOCKED),
		per_receiver AS (
			SELECT id, share_key, next_attempt_at FROM (SELECT c.id, c.share_key, c.next_attempt_at, coalesce(b.n, 0) AS busy,
					row_number() OVER (PARTITION BY c.receiver_key ORDER BY c.next_attempt_at) AS r
				FROM candidates c LEFT JOIN unnest($7::text[], $8::int[]) AS b(k, n) ON b.k = c.receiver_key) ranked
			WHERE r <= $12 - busy),
		picked AS (
			SELECT id FROM (SELECT c.id, c.next_attempt_at, coalesce(b.n, 0) AS busy,
					row_number() OVER (PARTITION BY c.share_key ORDER BY c.next_attempt_at) AS r
				FROM per_receiver c LEFT JOIN unnest($7::text[], $8::int[]) AS b(k, n) ON b.k = c.share_key) ranked
			WHERE r <= $9 - busy ORDER BY next_attempt_at LIMIT $3),
		claimed AS (
			UPDATE webhook_notifications n SET lease_until = now() + make_interval(secs => $4), lease_token = $5
			WHERE id IN (SELECT id FROM picked)`

// claim leases what pick picks (pickDue with its parameters, or pickShared with more).
func (o *Outbox) claim(ctx context.Context, states []string, ignoreSchedule bool, notSince time.Time, limit int, lease time.Duration, pick string, more ...any) ([]Claimed, error) {
	token := uuid.New()
	var since *time.Time
	if !notSince.IsZero() {
		since = &notSince
	}
	rows, err := o.pool.Query(ctx, pick+`
			RETURNING id, receipt_id, merchant_wallet, url, state, delivery_id, attempts, marked_at)
		SELECT c.id, c.receipt_id, c.merchant_wallet, c.url, s.queued_key, c.state, c.delivery_id, c.attempts, c.marked_at,
			r.state, k.nonce, k.ciphertext, now()
		FROM claimed c JOIN webhook_notifications s ON s.id = c.id -- the snapshot's version of the row
			LEFT JOIN receipts r ON r.receipt_id = c.receipt_id LEFT JOIN receipt_webhook_keys k ON k.receipt_id = c.receipt_id`,
		append([]any{states, ignoreSchedule, limit, lease.Seconds(), token, since}, more...)...)
	if err != nil {
		return nil, fmt.Errorf("claim notifications: %w", err)
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (Claimed, error) {
		c := Claimed{Lease: token}
		err := r.Scan(&c.ID, &c.ReceiptID, &c.Merchant, &c.URL, &c.QueuedKey, &c.State, &c.DeliveryID, &c.Attempts, &c.MarkedAt,
			&c.StateJSON, &c.KeyNonce, &c.KeySealed, &c.ClaimedAt)
		return c, err
	})
}

// Attempt is one recorded delivery attempt.
type Attempt struct {
	ID             uuid.UUID
	NotificationID uuid.UUID
	ReceiptID      string
	Merchant       string
	DeliveryID     uuid.UUID
	IdempotencyKey string
	StatusSent     string
	URL            string
	AttemptedAt    time.Time
	HTTPStatus     *int
	LatencyMS      int
	Error          string
	Kind           string
}

// Outcome is what a delivery attempt changes on its notification.
type Outcome struct {
	State      string
	DeliveryID uuid.UUID
	SentKey    string
	NextAt     time.Time
	MarkedAt   *time.Time
}

// Complete records an attempt and, if the notification still aims at the key it was claimed
// with, moves it to the outcome's state; the lease is released either way.
func (o *Outbox) Complete(ctx context.Context, c Claimed, a Attempt, out Outcome) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	_, err := o.completes.Do(completion{c: c, a: a, out: out})
	return err
}

// Release gives up the lease on a claimed notification without recording an attempt (the
// sender stopped before the attempt could tell anything): it is due again at once, as it was.
func (o *Outbox) Release(ctx context.Context, c Claimed) error {
	if _, err := o.pool.Exec(ctx, `UPDATE webhook_notifications SET lease_until = NULL, lease_token = NULL
		WHERE id = $1 AND lease_token = $2`, c.ID, c.Lease); err != nil {
		return fmt.Errorf("release notification: %w", err)
	}
	return nil
}

const insertAttempts = `INSERT INTO webhook_deliveries (id, notification_id, receipt_id, merchant_wallet, delivery_id, idempotency_key,
		status_sent, url, attempted_at, http_status, latency_ms, error, kind)
	SELECT u.id, u.nid, u.rid, u.mw, u.did, u.ik, u.ss, u.url, u.at, u.hs, u.lat, NULLIF(u.err, ''), u.kind
	FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::uuid[], $6::text[], $7::text[], $8::text[], $9::timestamptz[],
		$10::int[], $11::int[], $12::text[], $13::text[]) AS u(id, nid, rid, mw, did, ik, ss, url, at, hs, lat, err, kind)`

// queueAttempts queues into b the insert of attempts, in one statement.
func queueAttempts(b *pgx.Batch, attempts []Attempt) {
	n := len(attempts)
	ids, nids, dids := make([]uuid.UUID, n), make([]uuid.UUID, n), make([]uuid.UUID, n)
	rids, mws, iks, sss, urls, errs, kinds := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	ats, codes, lats := make([]time.Time, n), make([]*int32, n), make([]int32, n)
	for i, a := range attempts {
		ids[i], nids[i], rids[i], mws[i], dids[i], iks[i] = a.ID, a.NotificationID, a.ReceiptID, a.Merchant, a.DeliveryID, a.IdempotencyKey
		sss[i], urls[i], ats[i], lats[i], errs[i], kinds[i] = a.StatusSent, a.URL, a.AttemptedAt, int32(a.LatencyMS), a.Error, a.Kind
		if a.HTTPStatus != nil {
			code := int32(*a.HTTPStatus)
			codes[i] = &code
		}
	}
	b.Queue(insertAttempts, ids, nids, rids, mws, dids, iks, sss, urls, ats, codes, lats, errs, kinds)
}

const completeNotifications = `UPDATE webhook_notifications n SET lease_until = NULL, lease_token = NULL, updated_at = now(),
		state = CASE WHEN n.queued_key = u.qk THEN u.st ELSE n.state END,
		delivery_id = CASE WHEN n.queued_key = u.qk THEN u.did ELSE n.delivery_id END,
		sent_key = u.sk,
		attempts = CASE WHEN n.queued_key = u.qk THEN n.attempts + 1 ELSE n.attempts END,
		next_attempt_at = CASE WHEN n.queued_key = u.qk THEN u.nx ELSE n.next_attempt_at END,
		marked_at = CASE WHEN n.queued_key = u.qk THEN u.mk ELSE n.marked_at END,
		delivered_at = CASE WHEN n.queued_key = u.qk AND u.st = 'delivered' THEN now() ELSE n.delivered_at END
	FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::uuid[], $6::text[], $7::timestamptz[], $8::timestamptz[])
		AS u(id, lease, qk, st, did, sk, nx, mk)
	WHERE n.id = u.id AND n.lease_token = u.lease`

// flushCompletes records a group of attempts and their notifications' new states in one
// transaction.
func (o *Outbox) flushCompletes(batch []*groupcommit.Call[completion, struct{}]) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	n := len(batch)
	attempts := make([]Attempt, n)
	nids, leases, outDIDs := make([]uuid.UUID, n), make([]uuid.UUID, n), make([]uuid.UUID, n)
	qks, sts, sks := make([]string, n), make([]string, n), make([]string, n)
	nexts, marks := make([]time.Time, n), make([]*time.Time, n)
	for i, call := range batch {
		c, out := call.Item.c, call.Item.out
		attempts[i] = call.Item.a
		attempts[i].NotificationID = c.ID // the attempt belongs to the claimed notification
		nids[i], leases[i], qks[i], sts[i], outDIDs[i], sks[i], nexts[i], marks[i] = c.ID, c.Lease, c.QueuedKey, out.State, out.DeliveryID, out.SentKey, out.NextAt, out.MarkedAt
	}
	b := &pgx.Batch{}
	queueAttempts(b, attempts)
	b.Queue(completeNotifications, nids, leases, qks, sts, outDIDs, sks, nexts, marks)
	if err := o.pool.SendBatch(ctx, b).Close(); err != nil {
		err = fmt.Errorf("complete delivery: %w", err)
		for _, call := range batch {
			call.Err = err
		}
	}
}

// Deliveries lists merchant's delivery attempts, newest first, optionally for one receipt.
func (o *Outbox) Deliveries(ctx context.Context, merchant, receiptID string, limit int, cursor string) ([]Attempt, string, error) {
	before, beforeID, err := decodeCursor(cursor)
	if err != nil {
		return nil, "", err
	}
	rows, err := o.pool.Query(ctx, `SELECT id, notification_id, receipt_id, merchant_wallet, delivery_id, idempotency_key, status_sent, url,
			attempted_at, http_status, latency_ms, coalesce(error, ''), kind
		FROM webhook_deliveries WHERE merchant_wallet = $1 AND ($2 = '' OR receipt_id = $2)
		  AND ($3::timestamptz IS NULL OR (attempted_at, id) < ($3, $4::uuid))
		ORDER BY attempted_at DESC, id DESC LIMIT $5`, merchant, receiptID, before, beforeID, limit+1)
	if err != nil {
		return nil, "", fmt.Errorf("list deliveries: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Attempt, error) {
		var a Attempt
		err := r.Scan(&a.ID, &a.NotificationID, &a.ReceiptID, &a.Merchant, &a.DeliveryID, &a.IdempotencyKey, &a.StatusSent, &a.URL,
			&a.AttemptedAt, &a.HTTPStatus, &a.LatencyMS, &a.Error, &a.Kind)
		return a, err
	})
	if err != nil {
		return nil, "", err
	}
	next := ""
	if len(out) > limit {
		out = out[:limit]
		last := out[len(out)-1]
		next = encodeCursor(last.AttemptedAt, last.ID.String())
	}
	return out, next, nil
}

// NotificationOfDelivery returns the notification a delivery attempt belongs to, with its
// merchant, or ErrNotFound.
func (o *Outbox) NotificationOfDelivery(ctx context.Context, deliveryAttemptID uuid.UUID) (Claimed, error) {
	var c Claimed
	err := o.pool.QueryRow(ctx, `SELECT n.id, n.receipt_id, n.merchant_wallet, n.url, n.queued_key, n.state, n.delivery_id, n.attempts, n.marked_at
		FROM webhook_deliveries d JOIN webhook_notifications n ON n.id = d.notification_id WHERE d.id = $1`, deliveryAttemptID).
		Scan(&c.ID, &c.ReceiptID, &c.Merchant, &c.URL, &c.QueuedKey, &c.State, &c.DeliveryID, &c.Attempts, &c.MarkedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return Claimed{}, ErrNotFound
	}
	return c, err
}

// RecordAttempt stores a delivery attempt without changing its notification (manual redelivery
// of a notification that is not leased).
func (o *Outbox) RecordAttempt(ctx context.Context, a Attempt) error {
	b := &pgx.Batch{}
	queueAttempts(b, []Attempt{a})
	return o.pool.SendBatch(ctx, b).Close()
}

// MarkDelivered closes an open notification after a successful manual redelivery, if it still
// aims at queuedKey, the key it had when it was read before the redelivery (a status change
// since then may not be in what was sent: the notification stays open for it). One leased by a
// sender is left to it (its attempt completes it), unless the lease has run out (an instance
// that stopped mid-attempt): that one is closed and its lease dropped, so a late completion
// under it changes nothing. Left open, it was claimed and sent again once due, and the status
// read said pending meanwhile.
func (o *Outbox) MarkDelivered(ctx context.Context, id uuid.UUID, queuedKey, sentKey string) error {
	// failed -> delivered changes a settled state that status caches may hold: announce it.
	_, err := o.pool.Exec(ctx, `WITH upd AS (
			UPDATE webhook_notifications SET state = 'delivered', delivered_at = now(), sent_key = $2, updated_at = now(),
				lease_until = NULL, lease_token = NULL
			WHERE id = $1 AND queued_key = $3 AND state IN ('pending', 'retrying', 'marked', 'failed')
			  AND (lease_token IS NULL OR lease_until < now())
			RETURNING receipt_id)
		SELECT pg_notify('`+ReceiptsChangedChannel+`', receipt_id) FROM upd`, id, sentKey, queuedKey)
	return err
}

// PruneNotifications deletes up to limit receipt webhook notifications closed (delivered or
// failed) and not updated since cutoff, with their delivery log, oldest first. An open one is
// never deleted, and a replayed status change queues nothing again without it (the receipts
// projector does not queue what a replay applies).
func (o *Outbox) PruneNotifications(ctx context.Context, cutoff time.Time, limit int) (Pruned, error) {
	var out Pruned
	err := pgx.BeginFunc(ctx, o.pool, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT id FROM webhook_notifications WHERE state IN ('delivered', 'failed') AND updated_at < $1
			ORDER BY updated_at LIMIT $2 FOR UPDATE SKIP LOCKED`, cutoff, limit)
		if err != nil {
			return err
		}
		ids, err := pgx.CollectRows(rows, pgx.RowTo[uuid.UUID])
		if err != nil || len(ids) == 0 {
			return err
		}
		b := &pgx.Batch{}
		b.Queue(`DELETE FROM webhook_deliveries WHERE notification_id = ANY($1)`, ids)
		b.Queue(`DELETE FROM webhook_notifications WHERE id = ANY($1) AND state IN ('delivered', 'failed')`, ids)
		out.Rows = len(ids)
		return tx.SendBatch(ctx, b).Close()
	})
	if err != nil {
		return Pruned{}, fmt.Errorf("prune webhook notifications: %w", err)
	}
	return out, nil
}
