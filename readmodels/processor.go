package readmodels

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
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

// SessionShared reports whether a session id was seen for a receipt other than receiptID.
func (p *ProcessorEvents) SessionShared(ctx context.Context, sessionID, receiptID string) (bool, error) {
	var shared bool
	err := p.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM processor_events WHERE session_id = $1 AND receipt_id <> $2)`, sessionID, receiptID).Scan(&shared)
	return shared, err
}
