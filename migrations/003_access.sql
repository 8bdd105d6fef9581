-- Subscription keys: only the SHA-256 of a key is stored. In gateway mode the key's id is the
-- subscription id the gateway stamps.
CREATE TABLE api_keys (
    id         uuid        PRIMARY KEY,
    wallet     text        NOT NULL CHECK (wallet ~ '^0x[0-9a-f]{40}$'),
    name       text        NOT NULL DEFAULT '',
    scopes     text[]      NOT NULL,
    key_hash   bytea       NOT NULL UNIQUE,
    prefix     text        NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    revoked_at timestamptz
);
CREATE INDEX api_keys_wallet ON api_keys (wallet, created_at);

-- Single-use admin login nonces.
CREATE TABLE auth_nonces (
    nonce      text        PRIMARY KEY,
    seq        bigserial   NOT NULL,
    wallet     text        NOT NULL,
    issued_at  timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    used_at    timestamptz
);
CREATE INDEX auth_nonces_wallet ON auth_nonces (wallet, seq DESC);
