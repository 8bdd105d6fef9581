-- New receipts and delivery attempts have the highest positions and times. In a descending index
-- every insert lands on the leftmost leaf, which PostgreSQL splits in half (no rightmost fast
-- path, twice the pages); ascending, inserts append at the right and "newest first" is the same
-- index read backwards. After a blue/green rebuild the receipts indexes carry generated names, so
-- they are found by definition.
DO $$
DECLARE ix record;
BEGIN
    FOR ix IN SELECT indexname FROM pg_indexes
              WHERE schemaname = current_schema() AND tablename = 'receipts' AND indexdef LIKE '%pos_commit DESC%'
    LOOP
        EXECUTE format('DROP INDEX %I', ix.indexname);
    END LOOP;
END $$;
CREATE INDEX receipts_list ON receipts (merchant_wallet, pos_commit, pos_prepare);
CREATE INDEX receipts_status ON receipts (merchant_wallet, status, pos_commit, pos_prepare);

DROP INDEX webhook_deliveries_list;
CREATE INDEX webhook_deliveries_list ON webhook_deliveries (merchant_wallet, attempted_at, id);
