-- Transactions the operator account (CHAIN_OPERATOR_KEY) signs: split deployments and releases.
-- Each is recorded after it is signed and before it is broadcast, so that a crash in between is
-- recovered from the chain (found: recorded; not found: the same signed bytes are sent again) and
-- never answered with a second transaction. A nonce is unique per sender: two instances sharing
-- the key cannot sign two transactions with one nonce.
CREATE TABLE operator_transactions (
    id            bigserial   PRIMARY KEY,
    sender        text        NOT NULL,
    nonce         bigint      NOT NULL,
    kind          text        NOT NULL CHECK (kind IN ('deploy', 'release')),
    tx_hash       text        NOT NULL UNIQUE,
    raw_tx        bytea       NOT NULL,
    split_address text        NOT NULL DEFAULT '',
    token         text        NOT NULL DEFAULT '', -- symbol of a release (ETH or a CHAIN_TOKENS symbol)
    payee         text        NOT NULL DEFAULT '',
    status        text        NOT NULL DEFAULT 'signed' CHECK (status IN ('signed', 'mined', 'reverted')),
    amount        numeric(78, 0),                  -- what the release paid, base units
    gas_used      bigint,
    created_at    timestamptz NOT NULL DEFAULT now(),
    settled_at    timestamptz,
    UNIQUE (sender, nonce)
);
CREATE INDEX operator_transactions_unsettled ON operator_transactions (sender, nonce) WHERE status = 'signed';

-- Which release paid a receipt's payee: one row per receipt and payee, so a receipt is covered by
-- at most one release per payee whatever the number of distributors. A receipt whose funds left
-- with an earlier release (nothing releasable when it was distributed) points at that release;
-- tx_id NULL: none of ours (the payee released it). A reverted release frees its rows.
CREATE TABLE split_release_receipts (
    receipt_id text   NOT NULL,
    payee      text   NOT NULL,
    tx_id      bigint REFERENCES operator_transactions (id) ON DELETE CASCADE,
    PRIMARY KEY (receipt_id, payee)
);
CREATE INDEX split_release_receipts_tx ON split_release_receipts (tx_id);

-- The distributor's work list: receipts paid and not yet reconciled.
CREATE INDEX receipts_paid ON receipts (updated_at) WHERE status = 'paid';
