package readmodels

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payledger/payledger/domain/receipt"
)

// ProcessorEvents stores the onramp processor's signed events, deduplicated by id.
type ProcessorEvents struct{ pool *pgxpool.Pool }

// NewProcessorEvents returns the store on pool.
func NewProcessorEvents(pool *pgxpool.Pool) *ProcessorEvents { return &ProcessorEvents{pool: pool} }

// Record stores an event unless its id is stored; processed says whether the stored one was
// already applied (a replay is then a no-op).
func (p *ProcessorEvents) Record(ctx context.Context, id, receiptID, sessionID, status string, body []byte) (processed bool, err error) {
	tag, err := p.pool.Exec(ctx, `INSERT INTO processor_events (id, receipt_id, session_id, status, body) VALUES ($1, NULLIF($2, ''), NULLIF($3, ''), $4, $5)
		ON CONFLICT (id) DO NOTHING`, id, receiptID, sessionID, status, body)
	if err != nil {
		return false, fmt.Errorf("record processor event: %w", err)
	}
	if tag.RowsAffected() == 1 {
		return false, nil
	}
	err = p.pool.QueryRow(ctx, `SELECT processed_at IS NOT NULL FROM processor_events WHERE id = $1`, id).Scan(&processed)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	return processed, err
}

// MarkProcessed records that an event was applied.
func (p *ProcessorEvents) MarkProcessed(ctx context.Context, id string) error {
	_, err := p.pool.Exec(ctx, `UPDATE processor_events SET processed_at = now() WHERE id = $1`, id)
	return err
}

// SessionShared reports whether a session id was seen for a receipt other than receiptID: in a
// processor event, or started by the service for another receipt (SessionOwner).
func (p *ProcessorEvents) SessionShared(ctx context.Context, sessionID, receiptID string) (bool, error) {
	var shared bool
	err := p.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM processor_events WHERE session_id = $1 AND receipt_id <> $2)
		OR EXISTS (`+serviceSessions+` AND stream_id <> $3)`, sessionID, receiptID, receipt.Stream(receiptID)).Scan(&shared)
	if err != nil {
		return false, fmt.Errorf("processor session shared: %w", err)
	}
	return shared, nil
}

// SessionOwner is the receipt the service started sessionID for (its PaymentAttemptStarted with
// openedBy service, read from the event log: the append that records the session is the binding,
// so no second write can miss it); "" when the service started no such session.
func (p *ProcessorEvents) SessionOwner(ctx context.Context, sessionID string) (string, error) {
	var stream string
	err := p.pool.QueryRow(ctx, serviceSessions+` ORDER BY tx_id, seq LIMIT 1`, sessionID).Scan(&stream)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("processor session owner: %w", err)
	}
	return strings.TrimPrefix(stream, receipt.StreamPrefix), nil
}

// serviceSessions selects the streams of the attempts the service started for session $1 (index
// events_service_sessions, migration 038).
const serviceSessions = `SELECT stream_id FROM events WHERE type = '` + receipt.EventAttemptStarted + `'
	AND (data->>'processorSessionId') = $1 AND (data->>'openedBy') = 'service'`
