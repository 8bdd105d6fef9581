-- A restarted deposit detector looks back for the deposits that joined the watch list after the
-- last step that moved the cursor (settlement/deposit_lookback.go): the receipt rows written
-- after that step began to read its watch list, however long ago the receipt was issued (an order
-- journaled in degraded mode gets its row when the journal is replayed). So a receipt row keeps
-- when it was written, and the cursor when its step read its watch list, both on the database's
-- clock. Rows written before this migration have its time; cursors saved before it have none
-- (a first step then looks back for the deposits issued within the hour, as before).
ALTER TABLE receipts ADD COLUMN listed_at timestamptz NOT NULL DEFAULT now();
ALTER TABLE chain_cursors ADD COLUMN watched_at timestamptz;
