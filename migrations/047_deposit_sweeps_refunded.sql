-- A deposit receipt refunded (or with a refund claimed) before its sweep went through is swept
-- too (stop 67): a refund is sent from the merchant's own wallet (issue 41), so the customer's
-- payment left at the deposit was the merchant's for good. The sweeper's query takes such
-- receipts since stop 67 (settlement/pgstore/deposit_sweeps.go, sweepableStatuses); the trigger
-- that puts a receipt on its work list (migration 030) reacted to paid and reconciled only, so a
-- receipt refunded before its first check, or credited again after its refund, never reached it.
-- The statuses here are sweepableStatuses'.
CREATE OR REPLACE FUNCTION receipts_attach_triggers(tbl regclass) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE format('DROP TRIGGER IF EXISTS deposit_sweeps_seen ON %s', tbl);
    EXECUTE format('CREATE TRIGGER deposit_sweeps_seen AFTER INSERT OR UPDATE ON %s FOR EACH ROW
        WHEN (NEW.deposit_address IS NOT NULL AND NEW.status IN (''paid'', ''reconciled'', ''refund_requested'', ''refunded''))
        EXECUTE FUNCTION deposit_sweeps_seen()', tbl);
END
$$;

-- The trigger first, as in 030: replacing it locks receipts against writes until this migration
-- commits, so no change falls between the backfill's read and the trigger.
SELECT receipts_attach_triggers('receipts');

INSERT INTO deposit_sweeps AS s (receipt_id, seen_version)
SELECT receipt_id, version FROM receipts
WHERE deposit_address IS NOT NULL AND status IN ('refund_requested', 'refunded')
ON CONFLICT (receipt_id) DO UPDATE SET seen_version = greatest(s.seen_version, excluded.seen_version);
