-- The onramp reconciliation asks the processor about a card session opened after a declined one
-- too: the receipt reads failed (by the first attempt) while the processor decides the second
-- (receipt.State.OnrampOpen). Its list took generated, pending and ach_pending receipts only, so
-- when that session's webhook was lost nothing ever asked about it: the receipt stayed failed for
-- good while the customer may have paid. The list's third part reads these receipts by attempt
-- start; the predicate leaves out the failed receipts whose current attempt is the one that failed
-- them (most failed receipts), which that part would otherwise scan every 30 s.
CREATE INDEX IF NOT EXISTS receipts_retried_onramp_attempts ON receipts (attempt_started_at, receipt_id)
    WHERE status = 'failed' AND attempt_kind = 'onramp' AND NOT state ? 'windowExpiredAt' AND state ? 'failure'
      AND (state->'failure'->>'attemptId') IS DISTINCT FROM (state->>'currentAttempt');
