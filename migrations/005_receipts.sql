-- Inventory: plain CRUD per merchant; idempotent by (wallet, sku).
CREATE TABLE inventory_items (
    id          uuid        PRIMARY KEY,
    wallet      text        NOT NULL,
    sku         text        NOT NULL,
    name        text        NOT NULL,
    price_cents bigint      NOT NULL CHECK (price_cents >= 0),
    currency    text        NOT NULL CHECK (currency IN ('USD', 'EUR')),
    stock_qty   bigint      NOT NULL DEFAULT -1 CHECK (stock_qty >= -1),
    taxable     boolean     NOT NULL DEFAULT false,
    thumb       text        NOT NULL DEFAULT '',
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    UNIQUE (wallet, sku)
);
CREATE INDEX inventory_items_list ON inventory_items (wallet, created_at, id);

-- Receipts read model, kept by the receipts projector from the event log.
CREATE TABLE receipts (
    receipt_id      text        PRIMARY KEY,
    merchant_wallet text        NOT NULL,
    status          text        NOT NULL,
    previous_status text,
    currency        text        NOT NULL,
    total_cents     bigint      NOT NULL,
    webhook_url     text,
    receipt         jsonb       NOT NULL, -- the ReceiptGenerated data
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    version         bigint      NOT NULL,
    -- global position of the generating event: "newest first" is log order, the same after rebuilds
    pos_commit      bigint      NOT NULL,
    pos_prepare     bigint      NOT NULL
);
CREATE INDEX receipts_list ON receipts (merchant_wallet, pos_commit DESC, pos_prepare DESC);
CREATE INDEX receipts_status ON receipts (merchant_wallet, status, pos_commit DESC, pos_prepare DESC);

-- The API key that signs a receipt's webhooks, AES-256-GCM encrypted with SECRETS_KEY. Kept out
-- of events because events are kept forever and replayed.
CREATE TABLE receipt_webhook_keys (
    receipt_id text        PRIMARY KEY,
    nonce      bytea       NOT NULL,
    ciphertext bytea       NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);

-- Idempotency-Key of receipt-creating requests, kept 24 hours.
CREATE TABLE idempotency_keys (
    wallet       text        NOT NULL,
    key          text        NOT NULL,
    request_hash text        NOT NULL,
    receipt_id   text        NOT NULL,
    created_at   timestamptz NOT NULL,
    PRIMARY KEY (wallet, key)
);
