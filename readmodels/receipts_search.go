package readmodels

import (
	"context"
	"fmt"
)

// searchReceipts matches a receipt id (the primary key) or a transactionId among a merchant's
// receipts. The transactionId is written as the expression of the index the search is meant to
// read (migration 042: a hash index of (state->'receipt'->>'transactionId')), so that the planner can pair the
// two arms in a BitmapOr instead of reading the state of every one of the merchant's receipts.
const searchReceipts = `SELECT ` + receiptColumns + ` FROM receipts
	WHERE merchant_wallet = $1 AND (receipt_id = $2 OR state->'receipt'->>'transactionId' = $2)`

// searchReceiptsOrder puts the newest first; the limit bounds the page.
const searchReceiptsOrder = ` ORDER BY pos_commit DESC, pos_prepare DESC LIMIT $3`

// Search returns merchant's receipts whose receipt id or transactionId is q, of status when it is
// not "", newest first, at most limit (the dashboard's search). The status is a condition of the
// query, not a filter of its page: filtered after the limit, matches beyond the newest limit
// receipts of other statuses were never shown.
func (s *Receipts) Search(ctx context.Context, merchant, q, status string, limit int) ([]ReceiptRow, error) {
	query, args := searchReceipts+searchReceiptsOrder, []any{merchant, q, limit}
	if status != "" {
		query, args = searchReceipts+` AND status = $4`+searchReceiptsOrder, append(args, status)
	}
	rows, err := ReadPool(ctx, s.pool).Query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("search receipts: %w", err)
	}
	defer rows.Close()
	var out []ReceiptRow
	for rows.Next() {
		row, _, err := scanReceipt(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, row)
	}
	return out, rows.Err()
}
