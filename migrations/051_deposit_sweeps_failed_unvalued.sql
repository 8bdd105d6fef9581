-- A failed deposit receipt whose credits cannot be valued is on the sweeper's work list too (stop
-- 70). Migration 050 listed a failed receipt once amount_received was set, but amount_received is
-- NULL also when transfers were seen and cannot be valued in the receipt's token (an EUR receipt
-- without a rate): such funds stayed at the deposit, unseen by the sweeper and by the operator.
-- The receipt's state carries its credits ("credits", omitted while there are none), so the
-- trigger lists a failed receipt once anything was seen at its deposit, valued or not. The sweeper
-- then judges it (receipt.State.SweepHeld): funds it cannot value count nothing toward the sweep
-- floor, so they are not swept for the price of a dust transfer; they are listed for the operator
-- (the sweeper's log), who may flush them by hand, and a later valued transfer sweeps them with it.
-- The state is read only for a failed receipt with a deposit address and no amount_received (the
-- OR's left side lists the others first); a failed receipt with nothing seen stays off the list.
CREATE OR REPLACE FUNCTION receipts_attach_triggers(tbl regclass) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE format('DROP TRIGGER IF EXISTS deposit_sweeps_seen ON %s', tbl);
    EXECUTE format('CREATE TRIGGER deposit_sweeps_seen AFTER INSERT OR UPDATE ON %s FOR EACH ROW
        WHEN (NEW.deposit_address IS NOT NULL AND (NEW.status IN (''paid'', ''reconciled'', ''refund_requested'', ''refunded'')
            OR NEW.status = ''failed'' AND (NEW.amount_received IS NOT NULL OR jsonb_typeof(NEW.state -> ''credits'') = ''array'')))
        EXECUTE FUNCTION deposit_sweeps_seen()', tbl);
END
$$;

-- The trigger first, as in 030, 047 and 050: replacing it locks receipts against writes until this
-- migration commits, so no change falls between the backfill's read and the trigger.
SELECT receipts_attach_triggers('receipts');

INSERT INTO deposit_sweeps AS s (receipt_id, seen_version)
SELECT receipt_id, version FROM receipts
WHERE deposit_address IS NOT NULL AND status = 'failed' AND amount_received IS NULL
    AND jsonb_typeof(state -> 'credits') = 'array'
ON CONFLICT (receipt_id) DO UPDATE SET seen_version = greatest(s.seen_version, excluded.seen_version);
