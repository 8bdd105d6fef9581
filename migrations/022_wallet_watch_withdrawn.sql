-- The wallet verifier's work list also holds the paid receipts whose paying transaction a reorg
-- past the confirmation depth took off the chain (state.chainWithdrawnTx): the verifier watches
-- that transaction again, and its confirmation at depth restores the receipt (PaymentRestored).
-- The distributor's list leaves those receipts out until then.
CREATE INDEX receipts_wallet_watch ON receipts (receipt_id)
    WHERE attempt_kind = 'wallet' AND (status = 'pending' OR (status = 'paid' AND state ? 'chainWithdrawnTx'));
DROP INDEX receipts_wallet_pending;
