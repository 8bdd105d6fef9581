package readmodels

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/payledger/payledger/commands"
)

var _ commands.TransactionClaims = (*Receipts)(nil)

// ClaimTransaction binds a transaction hash (any case) to receiptID unless it is bound already,
// and returns the receipt it is bound to: receiptID, or the one that claimed it first. Two
// statements: the second one's snapshot sees a claim committed while the first one waited on it.
func (s *Receipts) ClaimTransaction(ctx context.Context, hash, receiptID string) (string, error) {
	hash = strings.ToLower(hash)
	var holder string
	err := s.pool.QueryRow(ctx, `INSERT INTO wallet_transactions (transaction_hash, receipt_id) VALUES ($1, $2)
		ON CONFLICT DO NOTHING RETURNING receipt_id`, hash, receiptID).Scan(&holder)
	if errors.Is(err, pgx.ErrNoRows) {
		err = s.pool.QueryRow(ctx, `SELECT receipt_id FROM wallet_transactions WHERE lower(transaction_hash) = $1`, hash).Scan(&holder)
	}
	if err != nil {
		return "", fmt.Errorf("claim transaction %s: %w", hash, err)
	}
	return holder, nil
}
