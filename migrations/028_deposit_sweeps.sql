-- Sweeps of deposit addresses (issue 26, DESIGN 9 "Sweeping"). A sweep is an operator transaction
-- (kind 'sweep') of the deposit factory moving many deposits' funds to their splits; it is
-- recorded in operator_transactions, with the deposits it names, before it is broadcast, so that a
-- crash between sending it and recording what it moved is recovered from its mined receipt's
-- Swept events, and the same deposit is never in two open sweeps.
ALTER TABLE operator_transactions DROP CONSTRAINT operator_transactions_kind_check;
ALTER TABLE operator_transactions ADD CONSTRAINT operator_transactions_kind_check
    CHECK (kind IN ('deploy', 'release', 'approve', 'spend', 'transfer', 'sweep'));

-- One row per receipt with a deposit address the sweeper has looked at:
--   checked_version the receipt's stream version last found needing nothing (0: check again); a
--                   receipt whose version is higher (a new transfer, a sweep recorded) is a
--                   candidate again
--   claim_token     the process checking it now (NULL: nobody); a claim older than the lease is
--                   taken over: nothing was sent under it
--   tx_id           the open sweep naming this deposit (NULL: none); its rows are freed once
--                   the sweep's outcome is recorded on the receipts
CREATE TABLE deposit_sweeps (
    receipt_id      text        PRIMARY KEY,
    checked_version bigint      NOT NULL DEFAULT 0,
    claim_token     uuid,
    claimed_at      timestamptz,
    tx_id           bigint      REFERENCES operator_transactions (id)
);
CREATE INDEX deposit_sweeps_open ON deposit_sweeps (tx_id) WHERE tx_id IS NOT NULL;

-- The sweeper's work list: receipts with a deposit address that are paid or reconciled.
CREATE INDEX receipts_deposit_sweepable ON receipts (updated_at) WHERE deposit_address IS NOT NULL AND status IN ('paid', 'reconciled');
