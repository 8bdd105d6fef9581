package readmodels

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// CreditedReceipts (commands.DepositOwners) lists the receipts the transfers of transaction hash (any case) were credited
// to by the deposit follower (deposit_credits). Errors: wrapped database errors.
func (s *Receipts) CreditedReceipts(ctx context.Context, hash string) ([]string, error) {
	rows, err := s.pool.Query(ctx, `SELECT DISTINCT receipt_id FROM deposit_credits WHERE transaction_hash = $1`, strings.ToLower(hash))
	if err != nil {
		return nil, fmt.Errorf("deposit credits of %s: %w", hash, err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("deposit credits of %s: %w", hash, err)
	}
	return ids, nil
}

// DepositOwner is the receipt whose deposit address is address (any case), "" for none. Errors:
// wrapped database errors.
func (s *Receipts) DepositOwner(ctx context.Context, address string) (string, error) {
	var id string
	err := s.pool.QueryRow(ctx, `SELECT receipt_id FROM receipts WHERE deposit_address = $1 LIMIT 1`, strings.ToLower(address)).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("receipt of deposit %s: %w", address, err)
	}
	return id, nil
}
