-- Webhook outbox. The receipts projector queues a notification in the same transaction as its
-- checkpoint whenever a receipt with a webhook URL changes status. queued_key (the spec's
-- idempotency key at queue time) is unique: a status change is never queued twice. At most one
-- notification per receipt is open; a newer status change re-aims it (coalescing).
CREATE TABLE webhook_notifications (
    id              uuid        PRIMARY KEY,
    receipt_id      text        NOT NULL,
    merchant_wallet text        NOT NULL,
    url             text        NOT NULL,
    queued_key      text        NOT NULL UNIQUE,
    sent_key        text,
    state           text        NOT NULL CHECK (state IN ('pending', 'retrying', 'marked', 'delivered', 'failed')),
    delivery_id     uuid,
    attempts        int         NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL,
    marked_at       timestamptz,
    lease_until     timestamptz,
    lease_token     uuid,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    delivered_at    timestamptz
);
CREATE UNIQUE INDEX webhook_notifications_open ON webhook_notifications (receipt_id) WHERE state IN ('pending', 'retrying', 'marked');
CREATE INDEX webhook_notifications_due ON webhook_notifications (next_attempt_at) WHERE state IN ('pending', 'retrying', 'marked');
CREATE INDEX webhook_notifications_receipt ON webhook_notifications (receipt_id, created_at DESC);

-- Every delivery attempt, for the delivery log.
CREATE TABLE webhook_deliveries (
    id              uuid        PRIMARY KEY,
    notification_id uuid        NOT NULL REFERENCES webhook_notifications (id),
    receipt_id      text        NOT NULL,
    merchant_wallet text        NOT NULL,
    delivery_id     uuid        NOT NULL,
    idempotency_key text        NOT NULL,
    status_sent     text        NOT NULL,
    url             text        NOT NULL,
    attempted_at    timestamptz NOT NULL,
    http_status     int,
    latency_ms      int         NOT NULL,
    error           text,
    kind            text        NOT NULL -- first | retry | reconcile | redeliver
);
CREATE INDEX webhook_deliveries_list ON webhook_deliveries (merchant_wallet, attempted_at DESC, id DESC);
CREATE INDEX webhook_deliveries_receipt ON webhook_deliveries (receipt_id, attempted_at DESC);
