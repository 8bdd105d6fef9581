package readmodels

import (
	"context"
	"fmt"
)

// Search returns merchant's receipts whose receipt id or transactionId is q, newest first, at
// most limit (the dashboard's search). The id is the primary key; the transactionId is read
// from the stored state among the merchant's receipts.
func (s *Receipts) Search(ctx context.Context, merchant, q string, limit int) ([]ReceiptRow, error) {
	rows, err := ReadPool(ctx, s.pool).Query(ctx, `SELECT `+receiptColumns+` FROM receipts
		WHERE merchant_wallet = $1 AND (receipt_id = $2 OR state->'receipt'->>'transactionId' = $2)
		ORDER BY pos_commit DESC, pos_prepare DESC LIMIT $3`, merchant, q, limit)
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
