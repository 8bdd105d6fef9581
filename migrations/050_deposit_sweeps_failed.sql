-- A failed deposit receipt's funds are swept too (stop 69): a partial payment the window failed,
-- or a payment after the monitor window, stayed at the deposit, which can only send to the
-- merchant's split, while the merchant refunded it from its own wallet (issue 41), so the merchant
-- paid the refund and never got the funds unless someone flushed the deposit by hand. The
-- sweeper's query takes failed receipts since stop 69 (settlement/pgstore/deposit_sweeps.go,
-- sweepableStatuses); the trigger lists a failed receipt only once something was seen at its
-- deposit (amount_received is NULL until then), so the many receipts that expire with nothing
-- never reach the sweeper's work list.
CREATE OR REPLACE FUNCTION receipts_attach_triggers(tbl regclass) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE format('DROP TRIGGER IF EXISTS deposit_sweeps_seen ON %s', tbl);
    EXECUTE format('CREATE TRIGGER deposit_sweeps_seen AFTER INSERT OR UPDATE ON %s FOR EACH ROW
        WHEN (NEW.deposit_address IS NOT NULL AND (NEW.status IN (''paid'', ''reconciled'', ''refund_requested'', ''refunded'')
            OR NEW.status = ''failed'' AND NEW.amount_received IS NOT NULL))
        EXECUTE FUNCTION deposit_sweeps_seen()', tbl);
END
$$;

-- The trigger first, as in 030 and 047: replacing it locks receipts against writes until this
-- migration commits, so no change falls between the backfill's read and the trigger.
SELECT receipts_attach_triggers('receipts');

INSERT INTO deposit_sweeps AS s (receipt_id, seen_version)
SELECT receipt_id, version FROM receipts
WHERE deposit_address IS NOT NULL AND status = 'failed' AND amount_received IS NOT NULL
ON CONFLICT (receipt_id) DO UPDATE SET seen_version = greatest(s.seen_version, excluded.seen_version);
