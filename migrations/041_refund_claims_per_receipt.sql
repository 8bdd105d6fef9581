-- A claim of a refund hash is held per receipt (stop 64). The hash alone was the key, so a claim
-- held it service-wide before the chain proved anything: a merchant with any receipt paid on
-- chain could claim another merchant's refund hash on it, and although that claim is refused
-- once the transaction is at depth (it pays none of its payers) and its row deleted, claiming it
-- again in a loop kept the real claim answering 409 most of the time.
-- Now every receipt may hold a claim of a hash, and the hash is taken, for good, by one row only
-- (refund_claims_taken): the claim the verifier proved first (it sets block_number before it
-- records the refund, and keeps it while counted), or a refund counted on the merchant's word
-- (state counted), or any hold on the merchant's word ("<hash>/<merchant>" keys: the merchant's
-- two receipts never hold one transaction, proven by nothing). Rows of today satisfy it: the
-- hash was unique.
-- During a rolling upgrade an instance of the previous release answers a refund with a hash
-- with an error (its ON CONFLICT (transaction_hash) names no unique index now) until it is
-- replaced; nothing is recorded by it meanwhile.
ALTER TABLE refund_claims DROP CONSTRAINT refund_claims_pkey;
ALTER TABLE refund_claims ADD PRIMARY KEY (transaction_hash, receipt_id);
CREATE UNIQUE INDEX refund_claims_taken ON refund_claims (transaction_hash)
    WHERE state = 'counted' OR block_number IS NOT NULL OR strpos(transaction_hash, '/') > 0;
