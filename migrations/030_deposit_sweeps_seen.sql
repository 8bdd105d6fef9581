-- The sweeper's work list is bounded by the work (readmodels.DepositSweeps.Claim): its candidates
-- were found by joining every paid or reconciled deposit receipt with its deposit_sweeps row, each
-- pass; with millions of swept receipts a pass read them all to find the few that changed.
--
--   seen_version  the highest stream version at which the receipts read model held the receipt
--                 paid or reconciled with a deposit address; kept by a trigger on receipts, so a
--                 row whose seen_version is past its checked_version is one the sweeper must look
--                 at, and a partial index lists exactly those.
--
--   due           the row is past its last check and in no open sweep: what the sweeper reads
--                 (index deposit_sweeps_due). A column, not only the index's predicate, so that
--                 ANALYZE tells the planner how few rows are due (it cannot estimate a comparison
--                 of two columns, and at a third of millions it would scan receipts again).
--
-- checked_version, claim_token and tx_id keep their meaning (migration 028). Every paid or
-- reconciled deposit receipt has a row now (the trigger inserts it), not only those claimed once.
ALTER TABLE deposit_sweeps ADD COLUMN seen_version bigint NOT NULL DEFAULT 0,
    ADD COLUMN due boolean NOT NULL GENERATED ALWAYS AS (seen_version > checked_version AND tx_id IS NULL) STORED;

-- The receipt's version only grows, so seen_version only grows; a replay of older versions (a
-- rebuild) finds them recorded already and writes nothing, taking no row lock the sweeper's
-- statements could wait for.
CREATE FUNCTION deposit_sweeps_seen() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM deposit_sweeps WHERE receipt_id = NEW.receipt_id AND seen_version >= NEW.version) THEN
        INSERT INTO deposit_sweeps AS s (receipt_id, seen_version) VALUES (NEW.receipt_id, NEW.version)
        ON CONFLICT (receipt_id) DO UPDATE SET seen_version = excluded.seen_version
        WHERE s.seen_version < excluded.seen_version;
    END IF;
    RETURN NULL;
END
$$;

-- Every trigger the receipts read model carries, attached to tbl: the live table here, and the
-- shadow table of a blue/green rebuild (projections.RebuildReceiptsBlueGreen), which is created
-- LIKE receipts (that copies indexes, not triggers) and renamed to receipts at the swap. A later
-- trigger on receipts is added to this function, so that a rebuilt table carries it too.
CREATE FUNCTION receipts_attach_triggers(tbl regclass) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE format('CREATE TRIGGER deposit_sweeps_seen AFTER INSERT OR UPDATE ON %s FOR EACH ROW
        WHEN (NEW.deposit_address IS NOT NULL AND NEW.status IN (''paid'', ''reconciled''))
        EXECUTE FUNCTION deposit_sweeps_seen()', tbl);
END
$$;

-- The trigger first: creating it locks receipts against writes until this migration commits, so
-- no change falls between the backfill's read and the trigger.
SELECT receipts_attach_triggers('receipts');

INSERT INTO deposit_sweeps AS s (receipt_id, seen_version)
SELECT receipt_id, version FROM receipts WHERE deposit_address IS NOT NULL AND status IN ('paid', 'reconciled')
ON CONFLICT (receipt_id) DO UPDATE SET seen_version = greatest(s.seen_version, excluded.seen_version);

-- The sweeper's work list: rows past their last check and in no open sweep (a claimed row stays
-- listed: its claim lapses after the lease).
CREATE INDEX deposit_sweeps_due ON deposit_sweeps (receipt_id) WHERE due;
ANALYZE deposit_sweeps;
