-- The payment window's due list (readmodels.Receipts.DueWindows, issue 26): receipts whose window
-- may end unpaid, in the order they end. Without it each pass of the window process (every
-- second) scans the receipts table.
CREATE INDEX receipts_window_due ON receipts (expires_at, receipt_id)
    WHERE expires_at IS NOT NULL AND (status IN ('generated', 'pending')
       OR (status = 'failed' AND NOT state ? 'windowExpiredAt'));
