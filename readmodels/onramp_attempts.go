package readmodels

import (
	"context"
	"fmt"
	"time"
)

// OpenOnrampAttemptsPage is a page of the receipts whose current onramp attempt the processor
// has still to decide, in (attempt start, receipt id) order after the cursor (afterStarted,
// afterReceipt); the zero cursor is before the first. It returns the page's receipt ids and the
// attempt start of its last one (the next cursor with the last id). The verifier pages through
// the list and wraps around, so open attempts the processor has nothing new about (abandoned
// checkouts, sessions its API no longer answers for) never keep the ones behind them from being
// asked.
//
// The list holds generated and pending receipts (OpenOnrampAttempts) and ach_pending ones: an
// ACH payment the processor accepted settles days later, and when the webhook of its completion
// is lost the processor's session is the only place that says so (the list took generated and
// pending only, so such a receipt stayed ach_pending for good). Each part is limited on its own,
// so the first reads the partial index receipts_open_attempts up to the limit as before (the
// two together in one sort read every open attempt: 89 ms against 2 on 200,000 receipts);
// the second reads receipts_ach_pending_attempts (migration 040; without it the second part
// scanned receipts_status, 27 ms in all on those 200,000, every 30 s).
//
// The third part is the failed receipts whose current attempt is an onramp session opened after
// the attempt that failed them (a card retried after a decline, not expired: what
// receipt.State.OnrampOpen holds open). The list left them out, so when that session's webhook
// was lost nothing asked about it and the receipt stayed failed while the customer may have
// paid. It reads receipts_retried_onramp_attempts (migration 044), whose predicate leaves out
// the failed receipts whose current attempt is the one that failed them.
func (s *Receipts) OpenOnrampAttemptsPage(ctx context.Context, before, afterStarted time.Time, afterReceipt string, limit int) ([]string, time.Time, error) {
	rows, err := s.pool.Query(ctx, openOnrampAttemptsPage, before, afterStarted, afterReceipt, limit)
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("list open attempts: %w", err)
	}
	defer rows.Close()
	var ids []string
	var last time.Time
	for rows.Next() {
		var id string
		if err := rows.Scan(&id, &last); err != nil {
			return nil, time.Time{}, fmt.Errorf("list open attempts: %w", err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, time.Time{}, fmt.Errorf("list open attempts: %w", err)
	}
	return ids, last, nil
}

// openOnrampAttemptsPage is OpenOnrampAttemptsPage's query ($1 before, $2 and $3 the cursor, $4
// the limit).
const openOnrampAttemptsPage = `SELECT receipt_id, attempt_started_at FROM (
	  (SELECT receipt_id, attempt_started_at FROM receipts
	  WHERE status IN ('generated', 'pending') AND attempt_kind = 'onramp' AND attempt_started_at < $1
	    AND NOT coalesce(state->'endedAttempts' ? (state->>'currentAttempt'), false)
	    AND (attempt_started_at, receipt_id) > ($2, $3)
	  ORDER BY attempt_started_at, receipt_id LIMIT $4)
	  UNION ALL
	  (SELECT receipt_id, attempt_started_at FROM receipts
	  WHERE status = 'ach_pending' AND attempt_kind = 'onramp' AND attempt_started_at < $1
	    AND NOT coalesce(state->'endedAttempts' ? (state->>'currentAttempt'), false)
	    AND (attempt_started_at, receipt_id) > ($2, $3)
	  ORDER BY attempt_started_at, receipt_id LIMIT $4)
	  UNION ALL
	  (SELECT receipt_id, attempt_started_at FROM receipts
	  WHERE status = 'failed' AND attempt_kind = 'onramp' AND NOT state ? 'windowExpiredAt' AND state ? 'failure'
	    AND (state->'failure'->>'attemptId') IS DISTINCT FROM (state->>'currentAttempt')
	    AND attempt_started_at < $1
	    AND NOT coalesce(state->'endedAttempts' ? (state->>'currentAttempt'), false)
	    AND (attempt_started_at, receipt_id) > ($2, $3)
	  ORDER BY attempt_started_at, receipt_id LIMIT $4)
	) open
	ORDER BY attempt_started_at, receipt_id LIMIT $4`
