-- Payments by deposit address (DESIGN 9). The receipts read model shows each receipt's deposit
-- address (lower case, so the detector and a hint look it up by exact match), the split it sweeps
-- to, its payment window and its amounts (decimal strings in units of the requested token).
ALTER TABLE receipts
    ADD COLUMN deposit_address text,
    ADD COLUMN deposit_split   text,
    ADD COLUMN expires_at      timestamptz,
    ADD COLUMN amount_required text,
    ADD COLUMN amount_received text,
    ADD COLUMN paid_late       boolean NOT NULL DEFAULT false;
CREATE INDEX receipts_deposit_address ON receipts (deposit_address) WHERE deposit_address IS NOT NULL;

-- Which receipt each transfer to a deposit address credited: a transfer credits one receipt once
-- (two instances of the detector, a submitted hash's 409).
CREATE TABLE deposit_credits (
    transaction_hash text NOT NULL,
    log_index        int  NOT NULL,
    receipt_id       text NOT NULL,
    PRIMARY KEY (transaction_hash, log_index)
);
CREATE INDEX deposit_credits_receipt ON deposit_credits (receipt_id);

-- Where each block follower stopped: the last block it processed, so a restart resumes there.
CREATE TABLE chain_cursors (
    name         text PRIMARY KEY,
    block_number bigint NOT NULL,
    block_hash   text NOT NULL
);

-- Contracts the service deployed itself, per chain (the deposit factory when DEPOSIT_FACTORY is
-- unset): deployed once, remembered here.
CREATE TABLE chain_contracts (
    chain_id bigint NOT NULL,
    name     text   NOT NULL,
    address  text   NOT NULL,
    PRIMARY KEY (chain_id, name)
);
