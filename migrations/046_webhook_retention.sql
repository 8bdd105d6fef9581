-- Retention of the webhook tables (stop 67): the merchants' event log and its deliveries are kept
-- 30 days, as Stripe keeps events, then pruned in bounded batches by the webhook retention worker
-- (webhooks.Retention); nothing pruned them, so webhook_events, endpoint messages and attempts,
-- receipt webhook notifications and their deliveries, and subscription webhooks grew for ever.
--
-- recorded_at: when the event entered the log (occurred_at is when it happened, which a late
-- recording can put far back). Rows already there take the time of this migration: they are
-- kept 30 days from the upgrade.
ALTER TABLE webhook_events ADD COLUMN IF NOT EXISTS recorded_at timestamptz NOT NULL DEFAULT now();

-- The log is pruned from its start, in seq order (never past an event still owed to an
-- endpoint): through_seq is the newest position pruned. GET /api/webhooks/stream refuses a
-- Last-Event-ID before it (the events after that id may be gone).
CREATE TABLE IF NOT EXISTS webhook_events_pruned (
    only_row    boolean     PRIMARY KEY DEFAULT true CHECK (only_row),
    through_seq bigint      NOT NULL DEFAULT 0,
    pruned_at   timestamptz
);
INSERT INTO webhook_events_pruned (only_row, through_seq) VALUES (true, 0) ON CONFLICT DO NOTHING;

-- What the pruning deletes by: an event's messages and attempts, a notification's deliveries,
-- and the closed rows by age.
CREATE INDEX IF NOT EXISTS webhook_endpoint_messages_event ON webhook_endpoint_messages (event_id);
CREATE INDEX IF NOT EXISTS webhook_endpoint_attempts_event ON webhook_endpoint_attempts (event_id);
CREATE INDEX IF NOT EXISTS webhook_deliveries_notification ON webhook_deliveries (notification_id);
CREATE INDEX IF NOT EXISTS webhook_notifications_closed ON webhook_notifications (updated_at) WHERE state IN ('delivered', 'failed');
CREATE INDEX IF NOT EXISTS subscription_webhooks_closed ON subscription_webhooks (created_at) WHERE state <> 'pending';
