-- A subscription's webhooks go out in the order they were queued (stop 67), as a receipt's do
-- (migration 043): subscription.charged / subscription.charge_failed were each sent on their own
-- schedule, so a charge_failed whose first attempt failed reached the receiver after the next
-- period's charged, and a receiver that keeps a subscription's last outcome kept the wrong one.
--
-- Endpoint messages: receipt_id now holds the message's order key, the event's receipt or, for
-- an event about a subscription, 'subscription:<subscriptionId>' (no receipt id starts so). The
-- pending messages of subscription events get theirs here; migration 043's index orders them.
UPDATE webhook_endpoint_messages m SET receipt_id = 'subscription:' || (v.data->>'subscriptionId'), event_seq = v.seq
FROM webhook_events v
WHERE v.id = m.event_id AND m.state = 'pending' AND m.receipt_id IS NULL AND v.type <> 'webhook.test'
  AND v.data->>'receiptId' IS NULL AND v.data->>'subscriptionId' IS NOT NULL;

-- The shop webhookUrl's outbox: a notification waits while an earlier one of its subscription
-- (created_at, then id) is pending; this index makes that check one probe.
CREATE INDEX IF NOT EXISTS subscription_webhooks_order
    ON subscription_webhooks (subscription_id, created_at, id) WHERE state = 'pending';
