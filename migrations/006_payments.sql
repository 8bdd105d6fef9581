-- The receipts read model keeps the whole receipt state, folded by the same Evolve function as
-- the aggregate, so a read never says more than the events do.
ALTER TABLE receipts ADD COLUMN state jsonb;
UPDATE receipts SET state = jsonb_build_object('exists', true, 'receipt', receipt, 'status', status, 'updatedAt',
    (extract(epoch from updated_at) * 1000)::bigint, 'refundedCents', 0, 'requestedRefundCents', 0);
ALTER TABLE receipts ALTER COLUMN state SET NOT NULL;
ALTER TABLE receipts ADD COLUMN attempt_kind text;
ALTER TABLE receipts ADD COLUMN attempt_started_at timestamptz;
CREATE INDEX receipts_open_attempts ON receipts (attempt_started_at) WHERE status IN ('generated', 'pending') AND attempt_kind = 'onramp';

-- Signed processor events: deduplicated by id, kept for reconciliation (also for unknown receipts).
CREATE TABLE processor_events (
    id           text        PRIMARY KEY,
    receipt_id   text,
    session_id   text,
    status       text        NOT NULL,
    body         jsonb       NOT NULL,
    received_at  timestamptz NOT NULL DEFAULT now(),
    processed_at timestamptz
);
CREATE INDEX processor_events_session ON processor_events (session_id);
CREATE INDEX processor_events_unprocessed ON processor_events (received_at) WHERE processed_at IS NULL;
