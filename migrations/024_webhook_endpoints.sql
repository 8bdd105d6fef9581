-- Webhook endpoints (DESIGN 9): a merchant's registered URLs, each with its own Standard Webhooks
-- secret (AES-256-GCM with SECRETS_KEY, the endpoint id as additional data, as the receipt
-- webhook keys) and event filter. A deleted endpoint keeps its row (deleted_at) so its delivery
-- log stays readable; it receives nothing more.
CREATE TABLE webhook_endpoints (
    id                uuid        PRIMARY KEY,
    merchant_wallet   text        NOT NULL,
    url               text        NOT NULL,
    events            text[]      NOT NULL,
    secret_nonce      bytea       NOT NULL,
    secret_ciphertext bytea       NOT NULL,
    created_at        timestamptz NOT NULL,
    deleted_at        timestamptz
);
CREATE INDEX webhook_endpoints_merchant ON webhook_endpoints (merchant_wallet, created_at) WHERE deleted_at IS NULL;

-- The merchant's event log: one row per event, in commit order (seq is taken under an advisory
-- lock held to commit, so a reader that resumes after seq never misses a row committed later
-- with a smaller seq). id is the Standard Webhooks webhook-id, event_key makes recording once.
-- GET /api/webhooks/stream reads it; endpoint messages point at it.
CREATE TABLE webhook_events (
    seq             bigint      PRIMARY KEY,
    id              uuid        NOT NULL UNIQUE,
    event_key       text        NOT NULL UNIQUE,
    merchant_wallet text        NOT NULL,
    type            text        NOT NULL,
    data            jsonb       NOT NULL,
    occurred_at     timestamptz NOT NULL
);
CREATE SEQUENCE webhook_events_seq OWNED BY webhook_events.seq;
CREATE INDEX webhook_events_merchant ON webhook_events (merchant_wallet, seq);

-- One message per (endpoint, event) the endpoint's filter takes, fanned out when the event is
-- recorded; retried with the receipt webhooks' schedule for 3 days under the same webhook-id.
CREATE TABLE webhook_endpoint_messages (
    endpoint_id     uuid        NOT NULL REFERENCES webhook_endpoints (id),
    event_id        uuid        NOT NULL REFERENCES webhook_events (id),
    state           text        NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'failed')),
    attempts        int         NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL DEFAULT now(),
    lease_until     timestamptz,
    created_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (endpoint_id, event_id)
);
CREATE INDEX webhook_endpoint_messages_due ON webhook_endpoint_messages (next_attempt_at) WHERE state = 'pending';

-- Every attempt to an endpoint, for its delivery log (the receiver's status code or the error).
CREATE TABLE webhook_endpoint_attempts (
    id           uuid        PRIMARY KEY,
    endpoint_id  uuid        NOT NULL REFERENCES webhook_endpoints (id),
    event_id     uuid        NOT NULL REFERENCES webhook_events (id),
    attempted_at timestamptz NOT NULL,
    http_status  int,
    latency_ms   int         NOT NULL,
    error        text,
    kind         text        NOT NULL -- first | retry | redeliver
);
CREATE INDEX webhook_endpoint_attempts_log ON webhook_endpoint_attempts (endpoint_id, attempted_at DESC, id DESC);
