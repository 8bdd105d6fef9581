package readmodels

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/payledger/payledger/domain/receipt"
)

// depositValues fills the receipts row's deposit columns (migration 027) from st: the deposit
// address in lower case (looked up by exact match), the split, the window's end and the amounts.
func depositValues(st receipt.State, v *stateValues) {
	g := st.Receipt
	if g.DepositAddress != "" {
		d, s := strings.ToLower(g.DepositAddress), g.DepositSplit
		v.deposit, v.split = &d, &s
	}
	if g.ExpiresAt > 0 {
		at := time.UnixMilli(g.ExpiresAt).UTC()
		v.expires = &at
	}
	if r := st.AmountRequired(); r != "" {
		v.required = &r
	}
	if r := st.AmountReceived(); r != "" {
		v.received = &r
	}
	v.late = st.PaidLate()
}

// DepositCredit is which receipt a transfer to a deposit address credited (deposit_credits).
type DepositCredit struct {
	TransactionHash string
	LogIndex        int
	ReceiptID       string
}

// QueueDepositCredits queues the rows of credits (hashes in lower case); a transfer already
// recorded keeps its first receipt.
func QueueDepositCredits(batch *pgx.Batch, credits []DepositCredit) {
	if len(credits) == 0 {
		return
	}
	hashes, indexes, ids := make([]string, len(credits)), make([]int32, len(credits)), make([]string, len(credits))
	for i, c := range credits {
		hashes[i], indexes[i], ids[i] = strings.ToLower(c.TransactionHash), int32(c.LogIndex), c.ReceiptID
	}
	batch.Queue(`INSERT INTO deposit_credits (transaction_hash, log_index, receipt_id)
		SELECT * FROM unnest($1::text[], $2::int[], $3::text[]) ON CONFLICT DO NOTHING`, hashes, indexes, ids)
}

// CreditedReceipt returns the receipt a transfer credited ("" for none).
func (s *Receipts) CreditedReceipt(ctx context.Context, txHash string, logIndex int) (string, error) {
	var id string
	err := s.pool.QueryRow(ctx, `SELECT receipt_id FROM deposit_credits WHERE transaction_hash = $1 AND log_index = $2`,
		strings.ToLower(txHash), logIndex).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	return id, err
}
