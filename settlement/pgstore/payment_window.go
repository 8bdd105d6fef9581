package pgstore

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/payledger/payledger/settlement"
)

// DueWindows lists, oldest deadline first, the receipts whose payment window ended at or before
// now and whose expiry is not recorded yet: generated or pending without an onramp attempt open
// (an onramp session whose success paid too little is over: receipt.State.EndedAttempts), or
// failed by an attempt of their own (not expired) unless a card session started after that
// failure is open (receipt.State.OnrampOpen: a card retried after a decline). The payment-window process decides each on
// the receipt's events (receipt.Expire); the read model only finds candidates, so a receipt that
// changed since it was projected is decided on what it is now.
//
// after is where the list starts (exclusive, in its order; the zero cursor: from the first): the
// payment-window process pages through the due list, so that receipts it cannot decide (a stream
// this build cannot read) never hold up the ones behind them.
//
// Its index is migration 029 (receipts_window_due); without it each pass scans the table.
// EXPLAIN on 200,000 rows shows this query as an index scan on it, stopping at the limit.
func (s *Receipts) DueWindows(ctx context.Context, now time.Time, after settlement.WindowCursor, limit int) ([]settlement.DueWindow, error) {
	from, args := "", []any{now, limit}
	if after != (settlement.WindowCursor{}) {
		from, args = ` AND (expires_at, receipt_id) > ($3, $4)`, append(args, after.ExpiresAt, after.ReceiptID)
	}
	rows, err := s.pool.Query(ctx, `SELECT receipt_id, expires_at FROM receipts
		WHERE expires_at <= $1`+from+`
		  AND ((status IN ('generated', 'pending') AND (attempt_kind IS DISTINCT FROM 'onramp'
		        OR state->'endedAttempts' ? (state->>'currentAttempt')))
		    OR (status = 'failed' AND NOT state ? 'windowExpiredAt' AND NOT (attempt_kind = 'onramp' AND state ? 'failure'
		        AND (state->'failure'->>'attemptId') IS DISTINCT FROM (state->>'currentAttempt')
		        AND NOT coalesce(state->'endedAttempts' ? (state->>'currentAttempt'), false))))
		ORDER BY expires_at, receipt_id LIMIT $2`, args...)
	if err != nil {
		return nil, fmt.Errorf("list due payment windows: %w", err)
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (settlement.DueWindow, error) {
		var d settlement.DueWindow
		err := r.Scan(&d.ReceiptID, &d.ExpiresAt)
		return d, err
	})
}

// DatabaseNow is the database's clock (clock_timestamp(): the time of the call, not of the
// transaction's start): the payment window process judges every instance's passes by it
// (settlement.PaymentWindowHandler.JudgedBy), so that one clock says when a window has ended.
func (s *Receipts) DatabaseNow(ctx context.Context) (time.Time, error) {
	var now time.Time
	if err := s.pool.QueryRow(ctx, `SELECT clock_timestamp()`).Scan(&now); err != nil {
		return time.Time{}, fmt.Errorf("read the database's clock: %w", err)
	}
	return now, nil
}
