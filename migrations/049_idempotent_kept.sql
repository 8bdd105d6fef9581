-- Kept Idempotency-Key answers per principal (stop 69, readmodels.IdempotentResponses): nothing
-- bounded them but the rate limits (50 live keys x 600 requests a minute x 24 h is about 43
-- million kept answers a day, each up to 1 MiB). Each hour (UTC) of a principal counts the keys
-- the middleware claimed in it (answers, less the claims released without an answer) and the
-- bytes of the answers kept; a claim of a new key sums the principal's last 25 rows (a
-- primary-key range read inside the claim's own statement) and is refused past the bound.
-- The receipt issuer's bindings (orders) are not counted: each made a receipt anyway, and the
-- order path does not read or write this table. Rows older than the window are deleted by the
-- principal's next claim. Claims made before this migration are not counted (no backfill: a
-- scan of idempotent_responses at upgrade would hold the start for minutes on a large table).
CREATE TABLE IF NOT EXISTS idempotent_kept (
    principal text        NOT NULL,
    hour      timestamptz NOT NULL,
    answers   int         NOT NULL DEFAULT 0,
    bytes     bigint      NOT NULL DEFAULT 0,
    PRIMARY KEY (principal, hour)
);
