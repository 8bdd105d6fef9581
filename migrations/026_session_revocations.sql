-- Ended admin sessions (DESIGN 9, security contracts). A logged-out token id stays here until the
-- token would have expired anyway; logout-all ends every session of a wallet issued up to
-- revoked_through (the session's iat, whole seconds).
CREATE TABLE revoked_sessions (
    token_id   text        PRIMARY KEY,
    expires_at timestamptz NOT NULL
);
CREATE INDEX revoked_sessions_expiry ON revoked_sessions (expires_at);

CREATE TABLE wallet_session_cutoffs (
    wallet          text        PRIMARY KEY,
    revoked_through timestamptz NOT NULL,
    expires_at      timestamptz NOT NULL
);

-- Login nonces are deleted once expired (readmodels.Nonces.Issue).
CREATE INDEX auth_nonces_expiry ON auth_nonces (expires_at);
