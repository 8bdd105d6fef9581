-- Idempotency-Key on every POST of the developer and admin APIs (DESIGN 9): the first answer to
-- (merchant wallet, key) is kept 24 h and answered again to the same request; another request
-- under the key is a conflict. A row not done is a request running: duplicates wait for it, or
-- take over once locked_until passed (its instance died). The body is sealed with SECRETS_KEY
-- (it may show a secret once, as a new API key or endpoint secret does).
CREATE TABLE idempotent_responses (
    principal    text        NOT NULL,
    key          text        NOT NULL,
    request_hash text        NOT NULL,
    done         boolean     NOT NULL DEFAULT false,
    status       int,
    content_type text,
    body_nonce   bytea,
    body_sealed  bytea,
    created_at   timestamptz NOT NULL DEFAULT now(),
    locked_until timestamptz NOT NULL,
    PRIMARY KEY (principal, key)
);
CREATE INDEX idempotent_responses_created ON idempotent_responses (created_at);
