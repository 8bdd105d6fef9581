-- The onramp reconciliation's fourth part (stop 70) lists a receipt failed on its current onramp
-- session while an earlier session of it may still be paid. A receipt without a payment window
-- (expires_at NULL: no deposits configured) is listed while its failed session started less than
-- 24 hours ago; no partial index held such receipts, so that half of the list read every failed
-- receipt's entry of receipts_status, every 30 s, and the failed receipts only grow. This index
-- holds exactly the failed receipts without a window whose current onramp attempt failed them,
-- by attempt start: the list reads the last 24 hours of it.
CREATE INDEX IF NOT EXISTS receipts_failed_onramp_unwindowed ON receipts (attempt_started_at, receipt_id)
    WHERE status = 'failed' AND attempt_kind = 'onramp' AND expires_at IS NULL
      AND (state->'failure'->>'attemptId') = (state->>'currentAttempt');
