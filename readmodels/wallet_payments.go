package readmodels

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/payledger/payledger/settlement"
)

var _ settlement.WalletPaymentReads = (*Receipts)(nil)

// PendingWalletPayments lists the receipts that are pending on a submitted wallet payment (their
// current attempt is a wallet transaction), and the paid ones whose paying transaction a deep
// reorg withdrew (state.chainWithdrawnTx), by receipt id after afterID ("" from the first), at
// most limit: one page of the wallet verifier's work list (index receipts_wallet_watch).
func (s *Receipts) PendingWalletPayments(ctx context.Context, afterID string, limit int) ([]settlement.PendingWalletPayment, error) {
	rows, err := s.pool.Query(ctx, `SELECT receipt_id, merchant_wallet, state->>'currentAttempt',
			coalesce(a->>'token', ''), coalesce(a->>'transactionHash', ''), coalesce(a->>'buyerWallet', '')
		FROM receipts, LATERAL (SELECT state->'attempts'->(state->>'currentAttempt') AS a) cur
		WHERE attempt_kind = 'wallet' AND (status = 'pending' OR (status = 'paid' AND state ? 'chainWithdrawnTx')) AND receipt_id > $1
		ORDER BY receipt_id LIMIT $2`, afterID, limit)
	if err != nil {
		return nil, fmt.Errorf("list pending wallet payments: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (settlement.PendingWalletPayment, error) {
		var p settlement.PendingWalletPayment
		err := r.Scan(&p.ReceiptID, &p.Merchant, &p.AttemptID, &p.Token, &p.TransactionHash, &p.BuyerWallet)
		return p, err
	})
	if err != nil {
		return nil, fmt.Errorf("list pending wallet payments: %w", err)
	}
	return out, nil
}

// ChainPaymentsSince lists the wallet payments the chain verifier recorded paid at or after since
// (state.payment.at), whatever the receipt's status now, with the block it recorded (index
// receipts_chain_paid). Receipts confirmed before payment blocks were kept in the state have no
// block and are left out.
func (s *Receipts) ChainPaymentsSince(ctx context.Context, since time.Time) ([]settlement.ChainPayment, error) {
	rows, err := s.pool.Query(ctx, `SELECT receipt_id, state->'payment'->>'attemptId', state->'payment'->>'transactionHash',
			state->'payment'->>'blockHash', (state->'payment'->>'blockNumber')::bigint
		FROM receipts
		WHERE attempt_kind = 'wallet' AND state->'payment'->>'verifiedBy' = 'chain'
			AND (state->'payment'->>'at')::bigint >= $1 AND state->'payment' ? 'blockHash'`, since.UnixMilli())
	if err != nil {
		return nil, fmt.Errorf("wallet payments confirmed since %s: %w", since, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (settlement.ChainPayment, error) {
		var c settlement.ChainPayment
		var number int64
		err := r.Scan(&c.ReceiptID, &c.AttemptID, &c.TransactionHash, &c.BlockHash, &number)
		c.BlockNumber = uint64(number)
		return c, err
	})
	if err != nil {
		return nil, fmt.Errorf("wallet payments confirmed since %s: %w", since, err)
	}
	return out, nil
}
