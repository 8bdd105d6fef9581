package pgstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payledger/payledger/settlement"
)

// ProcessorState is the onramp processor's state as the instance holding the reconciliation's
// turn found it (onramp_processor_state, migration 056): one row, written by the holder at each
// pass, read by the others (settlement.OnrampReconciler.SharingState).
type ProcessorState struct{ pool *pgxpool.Pool }

// NewProcessorState returns the state over pool.
func NewProcessorState(pool *pgxpool.Pool) *ProcessorState { return &ProcessorState{pool: pool} }

var _ settlement.ProcessorStates = (*ProcessorState)(nil)

// Record writes a pass's finding at at: down (nil: the processor answered) keeps the start of a
// run of failures (down_since) and replaces its error.
func (s *ProcessorState) Record(ctx context.Context, down error, at time.Time) error {
	var msg *string
	if down != nil {
		m := down.Error()
		msg = &m
	}
	_, err := s.pool.Exec(ctx, `INSERT INTO onramp_processor_state AS p (id, checked_at, down_since, error)
		VALUES (true, $1::timestamptz, CASE WHEN $2::text IS NULL THEN NULL ELSE $1::timestamptz END, $2::text)
		ON CONFLICT (id) DO UPDATE SET checked_at = $1::timestamptz, error = $2::text,
			down_since = CASE WHEN $2::text IS NULL THEN NULL ELSE coalesce(p.down_since, $1::timestamptz) END`, at, msg)
	if err != nil {
		return fmt.Errorf("record the onramp processor's state: %w", err)
	}
	return nil
}

// Read is the last finding recorded (zero: none yet).
func (s *ProcessorState) Read(ctx context.Context) (settlement.ProcessorReport, error) {
	var out settlement.ProcessorReport
	var since *time.Time
	var msg *string
	err := s.pool.QueryRow(ctx, `SELECT checked_at, down_since, error FROM onramp_processor_state`).Scan(&out.CheckedAt, &since, &msg)
	if err != nil {
		if errors.Is(err, pgx.ErrNoRows) {
			return settlement.ProcessorReport{}, nil
		}
		return settlement.ProcessorReport{}, fmt.Errorf("read the onramp processor's state: %w", err)
	}
	if since != nil && msg != nil {
		out.DownSince, out.Err = *since, *msg
	}
	return out, nil
}
