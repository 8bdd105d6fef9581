-- Refund transaction hashes (DESIGN 10, "Refunds"): one transfer counts for one refund at most.
-- The refund command reserves a hash here before it records the refund; the primary key is the
-- unique index that makes a second reservation of the hash, for another receipt, a 409 conflict.
-- The refund verifier reads its work here:
--   claimed  a refund that names the hash was asked for; the chain has not shown it at depth yet
--            (or a reorg took it back);
--   counted  the receipt's history counts the refund (processed on chain proof, at block_number /
--            block_hash, which the verifier audits for a reorg; or on the merchant's word).
-- A refused claim's row is deleted: the hash proved nothing and may be claimed again.
CREATE TABLE refund_claims (
    transaction_hash text PRIMARY KEY CHECK (transaction_hash = lower(transaction_hash)),
    receipt_id       text NOT NULL,
    state            text NOT NULL DEFAULT 'claimed' CHECK (state IN ('claimed', 'counted')),
    block_number     bigint,
    block_hash       text,
    claimed_at       timestamptz NOT NULL DEFAULT now(),
    counted_at       timestamptz
);

-- The verifier's work list (claims to read) and its audit list (counted on chain, newest first).
CREATE INDEX refund_claims_open ON refund_claims (claimed_at) WHERE state = 'claimed';
CREATE INDEX refund_claims_audit ON refund_claims (block_number) WHERE state = 'counted' AND block_number IS NOT NULL;
