-- The endpoint worker's fair claim (readmodels.Endpoints.ClaimMessages): it walks the endpoints
-- that have pending messages, one index probe each, and takes each one's oldest due messages up
-- to a per-endpoint share, so one endpoint's backlog cannot fill every attempt in flight.
CREATE INDEX IF NOT EXISTS webhook_endpoint_messages_endpoint_due ON webhook_endpoint_messages (endpoint_id, next_attempt_at)
    WHERE state = 'pending';
