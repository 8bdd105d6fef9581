-- Endpoint messages about one receipt go out in the order of the merchant's event log (stop 66):
-- a message waits while an earlier message about the same receipt to the same endpoint is still
-- pending (not yet delivered or given up). Each was sent on its own, up to 8 of one endpoint at
-- once and retried on its own schedule, so a receipt's `pending` whose first attempt failed
-- reached the endpoint after its `paid`, and a receiver that keeps the last status it was sent
-- believed the receipt unpaid.
--
-- receipt_id is the event's data.receiptId (null for events about no receipt: subscriptions,
-- tests; those are not held), event_seq the event's position in the log (webhook_events.seq,
-- commit order). Both are copied onto the message at fan-out so the claim's check is one probe of
-- the partial index below. Only pending messages are filled here: delivered and failed ones hold
-- nothing back. Nullable: an older binary fans out without them during a rolling upgrade, and its
-- messages are sent unordered, as before.
ALTER TABLE webhook_endpoint_messages
    ADD COLUMN IF NOT EXISTS receipt_id text,
    ADD COLUMN IF NOT EXISTS event_seq  bigint;

UPDATE webhook_endpoint_messages m SET receipt_id = v.data->>'receiptId', event_seq = v.seq
FROM webhook_events v
WHERE v.id = m.event_id AND m.state = 'pending' AND v.type <> 'webhook.test' AND m.receipt_id IS NULL;

CREATE INDEX IF NOT EXISTS webhook_endpoint_messages_receipt_order
    ON webhook_endpoint_messages (endpoint_id, receipt_id, event_seq)
    WHERE state = 'pending' AND receipt_id IS NOT NULL;
