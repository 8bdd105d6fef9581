-- Payment hints (POST /api/portal/{id}/payment, DESIGN 10): the transaction hash a payment page
-- reports for a receipt is kept here, outside the receipt's event stream, so that anyone posting
-- hashes cannot grow the stream every later command replays. A hint reaches the stream only when
-- its transaction, mined, transfers to the receipt's own deposit address.
--
--   state  waiting: not mined yet (or the chain could not be read); checked again by the hint
--          follower once it is. credited: its transfer pays the receipt (recorded in the stream).
--          refused: mined, and it pays another receipt, nothing this service accepts, or reverted.
--          expired: still not mined a day later.
--
-- One row per receipt and hash: a repeat changes nothing; another receipt's hint for the same
-- hash is its own row (a front-runner's hint never blocks the payer's). submitted_at counts the
-- receipt's hints per hour (at most 20).
CREATE TABLE payment_hints (
    receipt_id       text        NOT NULL,
    transaction_hash text        NOT NULL,
    token            text        NOT NULL,
    buyer_wallet     text        NOT NULL,
    submitted_at     timestamptz NOT NULL,
    state            text        NOT NULL DEFAULT 'waiting' CHECK (state IN ('waiting', 'credited', 'refused', 'expired')),
    decided_at       timestamptz,
    PRIMARY KEY (receipt_id, transaction_hash)
);
CREATE INDEX payment_hints_waiting ON payment_hints (submitted_at) WHERE state = 'waiting';
CREATE INDEX payment_hints_recent ON payment_hints (receipt_id, submitted_at);
