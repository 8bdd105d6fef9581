-- One transaction pays one receipt (DESIGN 8): a wallet payment claims its transaction hash when
-- it is submitted; the same hash submitted for another receipt is refused with 409 conflict.
-- Hashes are stored lower-cased; the unique index on lower() makes that a rule, not a habit.
CREATE TABLE wallet_transactions (
    transaction_hash text        NOT NULL,
    receipt_id       text        NOT NULL,
    claimed_at       timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX wallet_transactions_hash ON wallet_transactions (lower(transaction_hash));

-- The wallet verifier's work list: pending receipts whose current attempt is a wallet payment.
CREATE INDEX receipts_wallet_pending ON receipts (receipt_id) WHERE status = 'pending' AND attempt_kind = 'wallet';
