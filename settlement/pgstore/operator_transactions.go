package pgstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payledger/payledger/settlement"
)

// OperatorTransactions is the ledger of the operator's signed transactions and of which release
// covers which receipt (migration 013).
type OperatorTransactions struct{ pool *pgxpool.Pool }

var (
	_ settlement.OperatorLedger = (*OperatorTransactions)(nil)
	_ settlement.PaidReceipts   = (*Receipts)(nil)
)

// NewOperatorTransactions returns the ledger on pool.
func NewOperatorTransactions(pool *pgxpool.Pool) *OperatorTransactions {
	return &OperatorTransactions{pool: pool}
}

// NextNonce is one past the highest nonce recorded for sender, 0 when none.
func (o *OperatorTransactions) NextNonce(ctx context.Context, sender string) (uint64, error) {
	var n int64
	err := o.pool.QueryRow(ctx, `SELECT coalesce(max(nonce) + 1, 0) FROM operator_transactions WHERE sender = $1`, sender).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("next operator nonce: %w", err)
	}
	return uint64(n), nil
}

// Record stores tx and claims covers for its payee in one transaction. Errors:
// commands.ErrNonceTaken, commands.ErrCovered, commands.ErrReleasePending, wrapped database errors.
func (o *OperatorTransactions) Record(ctx context.Context, tx settlement.OperatorTx, covers []string) (int64, error) {
	var id int64
	err := pgx.BeginFunc(ctx, o.pool, func(t pgx.Tx) error {
		if tx.Kind == settlement.TxRelease {
			if err := noPendingRelease(ctx, t, tx.Split, tx.Token, tx.Payee); err != nil {
				return err
			}
		}
		err := t.QueryRow(ctx, `INSERT INTO operator_transactions (sender, nonce, kind, tx_hash, raw_tx, split_address, token, payee)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id`,
			tx.Sender, int64(tx.Nonce), tx.Kind, tx.Hash, tx.Raw, tx.Split, tx.Token, tx.Payee).Scan(&id)
		if err != nil {
			return err
		}
		if len(covers) == 0 {
			return nil
		}
		_, err = t.Exec(ctx, `INSERT INTO split_release_receipts (receipt_id, payee, tx_id) SELECT unnest($1::text[]), $2, $3`, covers, tx.Payee, id)
		return err
	})
	return id, ledgerError("record operator transaction", err)
}

// ledgerError maps unique violations: the nonce to ErrNonceTaken, a cover to ErrCovered.
func ledgerError(what string, err error) error {
	var pe *pgconn.PgError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &pe) && pe.Code == "23505" && pe.TableName == "split_release_receipts":
		return settlement.ErrCovered
	case errors.As(err, &pe) && pe.Code == "23505" && pe.ConstraintName == "operator_transactions_sender_nonce_key":
		return settlement.ErrNonceTaken
	}
	return fmt.Errorf("%s: %w", what, err)
}

// CoverReleased claims receipts for payee with the newest mined release of split and token to
// payee, or none. Errors: commands.ErrCovered, commands.ErrReleasePending (a release that may be
// the one that paid them is not settled yet: the newest mined one is not known).
func (o *OperatorTransactions) CoverReleased(ctx context.Context, split, token, payee string, receipts []string) error {
	err := pgx.BeginFunc(ctx, o.pool, func(t pgx.Tx) error {
		if err := noPendingRelease(ctx, t, split, token, payee); err != nil {
			return err
		}
		_, err := t.Exec(ctx, `INSERT INTO split_release_receipts (receipt_id, payee, tx_id)
			SELECT unnest($1::text[]), $2, (SELECT id FROM operator_transactions WHERE kind = 'release' AND status = 'mined'
				AND split_address = $3 AND token = $4 AND payee = $2 ORDER BY nonce DESC LIMIT 1)`, receipts, payee, split, token)
		return err
	})
	return ledgerError("cover receipts", err)
}

// noPendingRelease returns commands.ErrReleasePending when a release of split and token to payee
// is signed and not settled. The transaction-scoped advisory lock makes the check and the write
// after it one step for every instance sharing the database: the check is its own statement, so
// under READ COMMITTED it sees what the lock's previous holder committed.
func noPendingRelease(ctx context.Context, t pgx.Tx, split, token, payee string) error {
	if _, err := t.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, "payledger release "+split+" "+token+" "+payee); err != nil {
		return err
	}
	var pending bool
	if err := t.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM operator_transactions WHERE kind = 'release' AND status = 'signed'
		AND split_address = $1 AND token = $2 AND payee = $3)`, split, token, payee).Scan(&pending); err != nil {
		return err
	}
	if pending {
		return settlement.ErrReleasePending
	}
	return nil
}

// Unsettled lists sender's transactions still signed, by nonce.
func (o *OperatorTransactions) Unsettled(ctx context.Context, sender string) ([]settlement.OperatorTx, error) {
	rows, err := o.pool.Query(ctx, `SELECT id, sender, nonce, kind, tx_hash, raw_tx, split_address, token, payee, status
		FROM operator_transactions WHERE sender = $1 AND status = 'signed' ORDER BY nonce`, sender)
	if err != nil {
		return nil, fmt.Errorf("unsettled operator transactions: %w", err)
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (settlement.OperatorTx, error) {
		var t settlement.OperatorTx
		var nonce int64
		err := r.Scan(&t.ID, &t.Sender, &nonce, &t.Kind, &t.Hash, &t.Raw, &t.Split, &t.Token, &t.Payee, &t.Status)
		t.Nonce = uint64(nonce)
		return t, err
	})
}

// Settle records a mined transaction once; a reverted release frees the receipts it covered.
func (o *OperatorTransactions) Settle(ctx context.Context, id int64, status, amount string, gasUsed uint64) error {
	err := pgx.BeginFunc(ctx, o.pool, func(t pgx.Tx) error {
		_, err := t.Exec(ctx, `UPDATE operator_transactions SET status = $2, amount = nullif($3, '')::numeric, gas_used = $4, settled_at = now()
			WHERE id = $1 AND status = 'signed'`, id, status, amount, int64(gasUsed))
		if err != nil || status != settlement.TxReverted {
			return err
		}
		_, err = t.Exec(ctx, `DELETE FROM split_release_receipts WHERE tx_id = $1`, id)
		return err
	})
	return ledgerError("settle operator transaction", err)
}

// Coverage returns, per receipt, its payees' covers.
func (o *OperatorTransactions) Coverage(ctx context.Context, receipts []string) (map[string]map[string]settlement.Cover, error) {
	rows, err := o.pool.Query(ctx, `SELECT c.receipt_id, c.payee, coalesce(t.tx_hash, ''), coalesce(t.status, ''), coalesce(t.amount::text, '')
		FROM split_release_receipts c LEFT JOIN operator_transactions t ON t.id = c.tx_id WHERE c.receipt_id = ANY($1)`, receipts)
	if err != nil {
		return nil, fmt.Errorf("release coverage: %w", err)
	}
	defer rows.Close()
	out := map[string]map[string]settlement.Cover{}
	for rows.Next() {
		var id, payee string
		var c settlement.Cover
		if err := rows.Scan(&id, &payee, &c.Hash, &c.Status, &c.Amount); err != nil {
			return nil, err
		}
		if out[id] == nil {
			out[id] = map[string]settlement.Cover{}
		}
		out[id][payee] = c
	}
	return out, rows.Err()
}

// PaidReceipts lists receipts that are paid (not reconciled), longest paid first, with the
// paying token, from after (exclusive; the zero cursor: from the first), at most limit. A receipt
// whose paying transaction a deep reorg withdrew is left out until the chain shows it again.
func (s *Receipts) PaidReceipts(ctx context.Context, after settlement.PaidCursor, limit int) ([]settlement.PaidReceipt, error) {
	rows, err := s.pool.Query(ctx, `SELECT receipt_id, merchant_wallet, coalesce(state->'payment'->>'token', ''), updated_at, deposit_address IS NOT NULL
		FROM receipts WHERE status = 'paid' AND (updated_at, receipt_id) > ($1, $2) AND NOT state ? 'chainWithdrawnTx'
		ORDER BY updated_at, receipt_id LIMIT $3`, after.PaidAt, after.ReceiptID, limit)
	if err != nil {
		return nil, fmt.Errorf("paid receipts: %w", err)
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (settlement.PaidReceipt, error) {
		var p settlement.PaidReceipt
		err := r.Scan(&p.ReceiptID, &p.Merchant, &p.Token, &p.PaidAt, &p.Deposit)
		return p, err
	})
}
