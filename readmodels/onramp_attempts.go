package readmodels

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
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
//
// The fourth part (stop 70) is the failed receipts whose current onramp attempt failed them, in
// their window (not expired, the window ends after before), with an earlier onramp session not
// ended or failed: its payment may be under way or done. When that session's webhooks were lost,
// nothing asked about it: the receipt left the list when the newer session's failure failed it,
// the window expired it, and the payment's success was recorded as ignored after the expiry.
// Listed, the verifier asks the earlier sessions (commands.ReconcileOnrampHandler.Verify: the
// current session's failure is applied already): one under way makes it the current attempt
// again (receipt.State.Resumable, before the window's end), one complete pays. It reads
// receipts_window_due (migration 029: the receipts whose window may end unpaid, by its end) for
// the receipts in their window. A receipt without a window (expires_at NULL: no deposits
// configured) never expires, so it is listed while its failed session started less than 24 hours
// ago (a bank payment's acceptance comes within that); without that bound it would be asked about
// on every pass for good. The two halves are two parts of the union, each limited on its own:
// together, under one OR, the plan read every failed receipt's entry of receipts_status (an empty
// table with sequential scans off showed it). The half without a window reads
// receipts_failed_onramp_unwindowed (migration 052), the last 24 hours of it.
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
	  UNION ALL
	  (SELECT receipt_id, attempt_started_at FROM receipts
	  WHERE status = 'failed' AND NOT state ? 'windowExpiredAt' AND attempt_kind = 'onramp' AND attempt_started_at < $1
	    AND expires_at > $1
	    AND (state->'failure'->>'attemptId') = (state->>'currentAttempt') AND ` + earlierSessionUndecided + `
	    AND (attempt_started_at, receipt_id) > ($2, $3)
	  ORDER BY attempt_started_at, receipt_id LIMIT $4)
	  UNION ALL
	  (SELECT receipt_id, attempt_started_at FROM receipts
	  WHERE status = 'failed' AND attempt_kind = 'onramp' AND expires_at IS NULL
	    AND attempt_started_at < $1 AND attempt_started_at > $1 - interval '24 hours'
	    AND (state->'failure'->>'attemptId') = (state->>'currentAttempt') AND ` + earlierSessionUndecided + `
	    AND (attempt_started_at, receipt_id) > ($2, $3)
	  ORDER BY attempt_started_at, receipt_id LIMIT $4)
	) open
	ORDER BY attempt_started_at, receipt_id LIMIT $4`

// earlierSessionUndecided is the fourth part's test that the receipt has an onramp session other
// than its current one, with a session id, neither ended (a success recorded as paying nothing)
// nor failed (a payment failure reported).
const earlierSessionUndecided = `EXISTS (SELECT 1 FROM jsonb_each(state->'attempts') a
	      WHERE a.key <> (state->>'currentAttempt') AND (a.value->>'kind') = 'onramp' AND a.value ? 'sessionId'
	        AND NOT coalesce(state->'endedAttempts' ? a.key, false) AND NOT coalesce(state->'failedAttempts' ? a.key, false))`

// StuckACHReceipts lists, at most limit, the ach_pending receipts whose current onramp attempt
// is ended (receipt.State.ACHStuck: its short completion, recorded before stop 69 without
// reopened, left the receipt ach_pending; the reconciliation's list leaves them out), oldest
// attempt first. The payment window process reopens them (settlement.StuckACH). It reads the
// partial index receipts_ach_pending_attempts (migration 040): the ach_pending receipts only.
func (s *Receipts) StuckACHReceipts(ctx context.Context, limit int) ([]string, error) {
	rows, err := s.pool.Query(ctx, `SELECT receipt_id FROM receipts
		WHERE status = 'ach_pending' AND attempt_kind = 'onramp' AND coalesce(state->'endedAttempts' ? (state->>'currentAttempt'), false)
		ORDER BY attempt_started_at, receipt_id LIMIT $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("list stuck ACH receipts: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("list stuck ACH receipts: %w", err)
	}
	return ids, nil
}
