-- The webhook workers' fair claims (readmodels.Endpoints.ClaimMessages, Outbox.ClaimShared): they
-- walk the endpoints (merchants) that have open messages (notifications), one index probe each,
-- and take each one's oldest due up to a share, so one endpoint's or merchant's backlog to a
-- hanging receiver cannot fill every attempt in flight.
CREATE INDEX IF NOT EXISTS webhook_endpoint_messages_endpoint_due ON webhook_endpoint_messages (endpoint_id, next_attempt_at)
    WHERE state = 'pending';
CREATE INDEX IF NOT EXISTS webhook_notifications_merchant_due ON webhook_notifications (merchant_wallet, next_attempt_at)
    WHERE state IN ('pending', 'retrying');
