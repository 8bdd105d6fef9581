package readmodels

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// EndpointMessage is one event owed to one endpoint, as the dispatcher sends it.
type EndpointMessage struct {
	EndpointID uuid.UUID
	Merchant   string
	URL        string
	EventID    uuid.UUID // the webhook-id, the same on every attempt
	Type       string
	Data       json.RawMessage
	OccurredAt time.Time
	State      string
	Attempts   int
	Created    time.Time
	Deleted    bool // the endpoint was deleted since (manual redelivery refuses it)
}

// sealedSecrets is an endpoint row's sealed signing secrets. A message does not carry them: the
// send reads them just before it signs (SecretsNow).
type sealedSecrets struct {
	nonce, sealed []byte
	// the secret a rotation replaced and when it stops signing (nil: none, or never rotated)
	prevNonce, prevSealed []byte
	prevUntil             *time.Time
}

// sealedSecretsColumns are sealedSecrets' columns of webhook_endpoints, in scan order.
const sealedSecretsColumns = `secret_nonce, secret_ciphertext, previous_secret_nonce, previous_secret_ciphertext, previous_secret_expires_at`

func (k *sealedSecrets) dest() []any {
	return []any{&k.nonce, &k.sealed, &k.prevNonce, &k.prevSealed, &k.prevUntil}
}

// Signing is what signs an endpoint's deliveries at a time: its secrets, the current one first,
// and Version, which names the current one (its seal's nonce: Create and every RotateSecret seal
// anew with a random nonce), so a caller can tell whether a rotation committed since it read.
type Signing struct {
	Secrets []string
	Version string
}

// EndpointAttempt is one recorded attempt to an endpoint.
type EndpointAttempt struct {
	ID          uuid.UUID
	EndpointID  uuid.UUID
	EventID     uuid.UUID
	Type        string // the event's, when listed
	AttemptedAt time.Time
	HTTPStatus  *int
	LatencyMS   int
	Error       string
	Kind        string // first | retry | redeliver
}

const messageColumns = `m.endpoint_id, e.merchant_wallet, e.url, m.event_id, v.type, v.data, v.occurred_at, m.state, m.attempts, m.created_at,
	e.deleted_at IS NOT NULL`

func scanMessage(r pgx.CollectableRow) (EndpointMessage, error) {
	var m EndpointMessage
	err := r.Scan(&m.EndpointID, &m.Merchant, &m.URL, &m.EventID, &m.Type, &m.Data, &m.OccurredAt, &m.State, &m.Attempts, &m.Created,
		&m.Deleted)
	return m, err
}

// ClaimMessages leases up to limit due messages (FOR UPDATE SKIP LOCKED: several dispatchers
// never take the same one), oldest due first but at most perEndpoint of one endpoint less what
// the caller already has in flight to it (busy, by endpoint id): taken oldest first whoever they
// were for, one endpoint's backlog to a hanging receiver filled every attempt in flight and held
// every other merchant's deliveries for a timeout per claim. See claimFair for how the candidates
// are found.
//
// A receipt's messages to one endpoint go out in the order of the event log: a message is not
// due while an earlier one about the same receipt to the same endpoint is pending (in flight, or
// waiting for its retry), so a receipt's paid never reaches an endpoint before its pending did
// (or was given up, after 3 days). A subscription's messages are ordered the same way (orderKey,
// migration 045). Messages about neither are not held.
//
// A due message of a deleted endpoint is failed instead: it was fanned out (by the projector, or
// a test event) in a transaction that committed after Delete had failed the messages it could
// see, and a deleted endpoint receives nothing more. Those of the candidates are all failed,
// whatever the share: they are never in flight.
func (s *Endpoints) ClaimMessages(ctx context.Context, limit, perEndpoint int, busy map[uuid.UUID]int, lease time.Duration) ([]EndpointMessage, error) {
	return claimFair(limit, perEndpoint, busy, func(m EndpointMessage) uuid.UUID { return m.EndpointID },
		func(limit int, ids []uuid.UUID, counts []int32, capped []uuid.UUID) ([]EndpointMessage, error) {
			rows, err := s.pool.Query(ctx, claimMessages, limit, lease.Seconds(), perEndpoint, ids, counts, capped, limit*fairWindow)
			if err != nil {
				return nil, fmt.Errorf("claim endpoint messages: %w", err)
			}
			return pgx.CollectRows(rows, scanMessage)
		})
}

// claimMessages is ClaimMessages' round of claimFair: a window of $7 candidates, none of an
// endpoint in $6 nor held behind an earlier pending message of its receipt (the partial index of
// migration 043), at most $3 less what $4/$5 say is in flight to one endpoint, $1 in all.
const claimMessages = `WITH candidates AS MATERIALIZED (
			SELECT m.endpoint_id, m.event_id, m.next_attempt_at FROM webhook_endpoint_messages m
			WHERE m.state = 'pending' AND m.next_attempt_at <= now() AND (m.lease_until IS NULL OR m.lease_until < now())
			  AND NOT (m.endpoint_id = ANY($6::uuid[]))
			  AND NOT EXISTS (SELECT 1 FROM webhook_endpoint_messages o
				WHERE m.receipt_id IS NOT NULL AND o.endpoint_id = m.endpoint_id AND o.receipt_id = m.receipt_id
				  AND o.state = 'pending' AND o.receipt_id IS NOT NULL AND o.event_seq < m.event_seq)
			ORDER BY m.next_attempt_at LIMIT $7 FOR UPDATE OF m SKIP LOCKED),
		ranked AS (
			SELECT c.endpoint_id, c.event_id, c.next_attempt_at, e.deleted_at IS NOT NULL AS gone, coalesce(b.n, 0) AS busy,
				row_number() OVER (PARTITION BY c.endpoint_id ORDER BY c.next_attempt_at) AS r
			FROM candidates c JOIN webhook_endpoints e ON e.id = c.endpoint_id
				LEFT JOIN unnest($4::uuid[], $5::int[]) AS b(id, n) ON b.id = c.endpoint_id),
		due AS (
			SELECT endpoint_id, event_id, gone FROM ranked WHERE gone
			UNION ALL
			(SELECT endpoint_id, event_id, gone FROM ranked WHERE NOT gone AND r <= $3 - busy ORDER BY next_attempt_at LIMIT $1)),
		stopped AS (
			UPDATE webhook_endpoint_messages m SET state = 'failed', lease_until = NULL FROM due
			WHERE due.gone AND m.endpoint_id = due.endpoint_id AND m.event_id = due.event_id),
		claimed AS (
			UPDATE webhook_endpoint_messages m SET lease_until = now() + make_interval(secs => $2) FROM due
			WHERE NOT due.gone AND m.endpoint_id = due.endpoint_id AND m.event_id = due.event_id
			RETURNING m.*)
		SELECT ` + messageColumns + ` FROM claimed m JOIN webhook_endpoints e ON e.id = m.endpoint_id JOIN webhook_events v ON v.id = m.event_id`

// Message returns the message of event to merchant's endpoint, or ErrNotFound.
func (s *Endpoints) Message(ctx context.Context, merchant string, endpointID, eventID uuid.UUID) (EndpointMessage, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+messageColumns+` FROM webhook_endpoint_messages m
		JOIN webhook_endpoints e ON e.id = m.endpoint_id JOIN webhook_events v ON v.id = m.event_id
		WHERE m.endpoint_id = $1 AND m.event_id = $2 AND e.merchant_wallet = $3`, endpointID, eventID, merchant)
	if err != nil {
		return EndpointMessage{}, fmt.Errorf("read endpoint message: %w", err)
	}
	m, err := pgx.CollectExactlyOneRow(rows, scanMessage)
	if errors.Is(err, pgx.ErrNoRows) {
		return EndpointMessage{}, ErrNotFound
	}
	return m, err
}

// open opens the secrets k signs with at now: the endpoint's current secret, then, until its
// expiry, the one its latest rotation replaced (RotateSecret).
func (s *Endpoints) open(id uuid.UUID, k sealedSecrets, now time.Time) (Signing, error) {
	secret, err := s.keys.Open(endpointAAD(id), k.nonce, k.sealed)
	if err != nil {
		return Signing{}, fmt.Errorf("open endpoint secret: %w", err)
	}
	out := Signing{Secrets: []string{secret}, Version: hex.EncodeToString(k.nonce)}
	if k.prevUntil == nil || !now.Before(*k.prevUntil) || k.prevSealed == nil {
		return out, nil
	}
	prev, err := s.keys.Open(endpointAAD(id), k.prevNonce, k.prevSealed)
	if err != nil {
		return Signing{}, fmt.Errorf("open endpoint previous secret: %w", err)
	}
	out.Secrets = append(out.Secrets, prev)
	return out, nil
}

// SecretsNow opens the secrets that sign m at now as the endpoint's row holds them now: the send
// reads them just before it signs (a rotation committed between a claim and its send signs that
// attempt), and again after a refused attempt to see whether a rotation committed meanwhile
// (Signing.Version). Errors: ErrNotFound when the endpoint row is gone.
func (s *Endpoints) SecretsNow(ctx context.Context, m EndpointMessage, now time.Time) (Signing, error) {
	var k sealedSecrets
	err := s.pool.QueryRow(ctx, `SELECT `+sealedSecretsColumns+` FROM webhook_endpoints WHERE id = $1`, m.EndpointID).Scan(k.dest()...)
	if errors.Is(err, pgx.ErrNoRows) {
		return Signing{}, ErrNotFound
	}
	if err != nil {
		return Signing{}, fmt.Errorf("read webhook endpoint secrets: %w", err)
	}
	return s.open(m.EndpointID, k, now)
}

// RecordAttempt records an attempt without changing its message: a request the receiver refused
// before the same attempt was sent again at once (SendEndpoint, after a rotation).
func (s *Endpoints) RecordAttempt(ctx context.Context, a EndpointAttempt) error {
	if _, err := s.pool.Exec(ctx, `INSERT INTO webhook_endpoint_attempts (id, endpoint_id, event_id, attempted_at, http_status, latency_ms, error, kind)
		VALUES ($1, $2, $3, $4, $5, $6, NULLIF($7, ''), $8)`, a.ID, a.EndpointID, a.EventID, a.AttemptedAt, a.HTTPStatus, a.LatencyMS, a.Error, a.Kind); err != nil {
		return fmt.Errorf("record endpoint attempt: %w", err)
	}
	return nil
}

// CompleteMessage records an attempt and moves its message to state (pending again at next,
// delivered or failed), releasing the lease. A manual redelivery (kind redeliver) that succeeds
// closes the message; one that fails leaves its schedule as it was.
//
// The later messages of the message's receipt to the endpoint, held behind it (ClaimMessages),
// follow its schedule: a retry at next moves them to next, so they do not stay due, each claim
// passing over them, for as long as it fails; a manual redelivery that closes it makes them due
// at once.
func (s *Endpoints) CompleteMessage(ctx context.Context, a EndpointAttempt, state string, next time.Time) error {
	b := &pgx.Batch{}
	b.Queue(`INSERT INTO webhook_endpoint_attempts (id, endpoint_id, event_id, attempted_at, http_status, latency_ms, error, kind)
		VALUES ($1, $2, $3, $4, $5, $6, NULLIF($7, ''), $8)`, a.ID, a.EndpointID, a.EventID, a.AttemptedAt, a.HTTPStatus, a.LatencyMS, a.Error, a.Kind)
	switch {
	case a.Kind == "redeliver" && state == NoteDelivered:
		b.Queue(`UPDATE webhook_endpoint_messages SET state = 'delivered' WHERE endpoint_id = $1 AND event_id = $2`, a.EndpointID, a.EventID)
		b.Queue(moveHeld, a.EndpointID, a.EventID, time.Time{}, true)
	case a.Kind == "redeliver":
	default:
		b.Queue(`UPDATE webhook_endpoint_messages SET state = $3, attempts = attempts + 1, next_attempt_at = $4, lease_until = NULL
			WHERE endpoint_id = $1 AND event_id = $2 AND state = 'pending'`, a.EndpointID, a.EventID, state, next)
		if state == NotePending {
			b.Queue(moveHeld, a.EndpointID, a.EventID, next, false)
		}
	}
	if err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error { return tx.SendBatch(ctx, b).Close() }); err != nil {
		return fmt.Errorf("complete endpoint message: %w", err)
	}
	return nil
}

// moveHeld moves the pending messages held behind message ($1, $2) (its receipt's later ones to
// the same endpoint): to $3 when it is later than theirs, or, with $4, to now when they were
// moved into the future and never attempted.
const moveHeld = `UPDATE webhook_endpoint_messages l SET next_attempt_at = CASE WHEN $4 THEN now() ELSE $3 END
	FROM webhook_endpoint_messages h
	WHERE h.endpoint_id = $1 AND h.event_id = $2 AND h.receipt_id IS NOT NULL
	  AND l.endpoint_id = h.endpoint_id AND l.receipt_id = h.receipt_id AND l.state = 'pending' AND l.receipt_id IS NOT NULL
	  AND l.event_seq > h.event_seq
	  AND CASE WHEN $4 THEN l.attempts = 0 AND l.next_attempt_at > now() ELSE l.next_attempt_at < $3 END`

// ReleaseMessage gives up the lease on a claimed message without recording an attempt (the
// sender stopped before the attempt could tell anything): it is due again at once, as it was.
func (s *Endpoints) ReleaseMessage(ctx context.Context, m EndpointMessage) error {
	if _, err := s.pool.Exec(ctx, `UPDATE webhook_endpoint_messages SET lease_until = NULL
		WHERE endpoint_id = $1 AND event_id = $2 AND state = 'pending'`, m.EndpointID, m.EventID); err != nil {
		return fmt.Errorf("release endpoint message: %w", err)
	}
	return nil
}

// Attempts lists the delivery log of merchant's endpoint, newest first, at most limit.
// Errors: ErrNotFound for an endpoint that is not the merchant's.
func (s *Endpoints) Attempts(ctx context.Context, merchant string, endpointID uuid.UUID, limit int) ([]EndpointAttempt, error) {
	var mine bool
	if err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM webhook_endpoints WHERE id = $1 AND merchant_wallet = $2)`,
		endpointID, merchant).Scan(&mine); err != nil {
		return nil, fmt.Errorf("read webhook endpoint: %w", err)
	}
	if !mine {
		return nil, ErrNotFound
	}
	rows, err := s.pool.Query(ctx, `SELECT a.id, a.endpoint_id, a.event_id, v.type, a.attempted_at, a.http_status, a.latency_ms, coalesce(a.error, ''), a.kind
		FROM webhook_endpoint_attempts a JOIN webhook_events v ON v.id = a.event_id
		WHERE a.endpoint_id = $1 ORDER BY a.attempted_at DESC, a.id DESC LIMIT $2`, endpointID, limit)
	if err != nil {
		return nil, fmt.Errorf("list endpoint attempts: %w", err)
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (EndpointAttempt, error) {
		var a EndpointAttempt
		err := r.Scan(&a.ID, &a.EndpointID, &a.EventID, &a.Type, &a.AttemptedAt, &a.HTTPStatus, &a.LatencyMS, &a.Error, &a.Kind)
		return a, err
	})
}
