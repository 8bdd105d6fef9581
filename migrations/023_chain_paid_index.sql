-- The wallet verifier resumes, at start, the post-depth audit of the payments it recorded paid
-- lately (readmodels.ChainPaymentsSince): an index on the payment's recording time, over wallet
-- payments the chain verified only.
CREATE INDEX receipts_chain_paid ON receipts (((state->'payment'->>'at')::bigint))
    WHERE attempt_kind = 'wallet' AND state->'payment'->>'verifiedBy' = 'chain';
