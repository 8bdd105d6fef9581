package pgstore

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payledger/payledger/settlement"
)

// DepositSweeps is the sweeper's ledger (migration 028): which receipts' deposits are claimed,
// in an open sweep, or checked; the sweeps themselves are operator transactions (migration 013).
type DepositSweeps struct {
	*OperatorTransactions
}

var _ settlement.SweepLedger = (*DepositSweeps)(nil)

// NewDepositSweeps returns the ledger on pool.
func NewDepositSweeps(pool *pgxpool.Pool) *DepositSweeps {
	return &DepositSweeps{OperatorTransactions: NewOperatorTransactions(pool)}
}

// claimable is the condition, on a deposit_sweeps row s, that token may claim it.
const claimable = `s.tx_id IS NULL AND (s.claim_token IS NULL OR s.claim_token = $1 OR s.claimed_at < now() - $2::interval)`

// claimSQL reads only the rows past their last check (index deposit_sweeps_due, migration 030),
// not every paid deposit receipt: the trigger on receipts keeps seen_version. Rows another
// statement holds are skipped, not waited for: another instance's claim (which then owns them) or
// the projector recording a newer version (the next pass sees it). Rows not claimed come first,
// then the longest claimed: a receipt the sweeper keeps claimed without checking it (its stream
// cannot be read, during a rollback) goes to the back, so a full claim of such receipts does not
// come back first on every pass and hold up every other deposit's sweep.
const claimSQL = `WITH cand AS (
		SELECT s.receipt_id FROM deposit_sweeps s JOIN receipts r USING (receipt_id)
		WHERE s.due AND ` + claimable + `
		  AND r.deposit_address IS NOT NULL AND r.status IN (` + sweepableStatuses + `) AND r.version > s.checked_version
		ORDER BY s.claimed_at NULLS FIRST, r.updated_at, r.receipt_id LIMIT $3
		FOR UPDATE OF s SKIP LOCKED),
	claimed AS (
		UPDATE deposit_sweeps s SET claim_token = $1, claimed_at = now() WHERE s.receipt_id IN (SELECT receipt_id FROM cand)
		RETURNING s.receipt_id)
	SELECT r.receipt_id, r.deposit_address, coalesce(r.deposit_split, ''), r.version
	FROM claimed c JOIN receipts r USING (receipt_id) ORDER BY r.updated_at, r.receipt_id`

// sweepableStatuses are the statuses of a receipt whose deposit the sweeper sweeps: paid, and
// every status a paid receipt moves to. A refund is sent from the merchant's own wallet (issue
// 41), so a receipt refunded (or with a refund claimed) before its sweep went through (the
// sweeper down, the operator out of gas money, its split held back) still has the customer's
// payment at its deposit, which can only ever go to the split: left there, the merchant paid the
// refund and never got the payment. A failed receipt with funds at its deposit (a partial payment,
// a payment after the monitor window) is swept too (stop 69, migration 050): its refund is sent
// from the merchant's wallet as well, and the funds can only ever go to the split.
const sweepableStatuses = `'paid', 'reconciled', 'refund_requested', 'refunded', 'failed'`

// forgetUnsweepableSQL marks checked the due rows of receipts in no sweepable status: Claim never
// takes them, and left due they would be read again on every pass. A receipt paid again has a
// higher version, so it is due again (the trigger). Rows locked in receipt order, as locked() does, skipping those held.
const forgetUnsweepableSQL = `WITH l AS (SELECT s.receipt_id FROM deposit_sweeps s JOIN receipts r USING (receipt_id)
		WHERE s.due AND s.claim_token IS NULL AND r.status NOT IN (` + sweepableStatuses + `)
		ORDER BY s.receipt_id COLLATE "C" FOR UPDATE OF s SKIP LOCKED)
	UPDATE deposit_sweeps s SET checked_version = s.seen_version FROM l WHERE s.receipt_id = l.receipt_id`

// Claim claims up to limit receipts paid (or since reconciled or refunded, or failed with funds
// seen at the deposit) with a deposit address whose version is past the last check, in no open
// sweep and claimed by no live claim, oldest change first. Two instances claiming at once never claim one receipt: each skips the rows the other has locked.
func (d *DepositSweeps) Claim(ctx context.Context, token uuid.UUID, lease time.Duration, limit int) ([]settlement.SweepCandidate, error) {
	if _, err := d.pool.Exec(ctx, forgetUnsweepableSQL); err != nil {
		return nil, fmt.Errorf("claim deposit sweeps: %w", err)
	}
	rows, err := d.pool.Query(ctx, claimSQL, token, fmt.Sprintf("%d milliseconds", lease.Milliseconds()), limit)
	if err != nil {
		return nil, fmt.Errorf("claim deposit sweeps: %w", err)
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (settlement.SweepCandidate, error) {
		var c settlement.SweepCandidate
		var v int64
		err := r.Scan(&c.ReceiptID, &c.Deposit, &c.Split, &v)
		c.Version = uint64(v)
		return c, err
	})
}

// locked is a CTE that locks the deposit_sweeps rows matching where in receipt order, the order
// in which the receipts projector's trigger locks them (QueueStates sorts by byte, hence "C"): a
// statement updating several rows in another order could deadlock with a projector batch.
func locked(where string) string {
	return `WITH l AS (SELECT receipt_id FROM deposit_sweeps WHERE ` + where + ` ORDER BY receipt_id COLLATE "C" FOR UPDATE) `
}

// Checked releases token's claims of checked, each checked at its version, and keeps on each row
// what its check left held at the deposit under the sweep floor (held_units, since held_at;
// migration 054), or clears it: an operator lists the failed receipts' funds the service leaves
// at their deposits with one query (docs/runbook.md "Funds left at a deposit"), where they were in
// a log line only. A sweep recorded for the receipt (RecordSweep) clears it too.
func (d *DepositSweeps) Checked(ctx context.Context, token uuid.UUID, checked []settlement.SweepCandidate) error {
	if len(checked) == 0 {
		return nil
	}
	ids, versions, held := make([]string, len(checked)), make([]int64, len(checked)), make([]string, len(checked))
	for i, c := range checked {
		ids[i], versions[i] = c.ReceiptID, int64(c.Version)
		if len(c.Held) > 0 {
			b, err := json.Marshal(c.Held)
			if err != nil {
				return fmt.Errorf("release deposit sweep claims: %w", err)
			}
			held[i] = string(b)
		}
	}
	_, err := d.pool.Exec(ctx, locked(`receipt_id = ANY($2) AND claim_token = $1`)+`UPDATE deposit_sweeps s
		SET checked_version = greatest(s.checked_version, c.version), claim_token = NULL, claimed_at = NULL,
			held_units = nullif(c.held, '')::jsonb,
			held_at = CASE WHEN c.held = '' THEN NULL ELSE coalesce(s.held_at, now()) END
		FROM l, unnest($2::text[], $3::bigint[], $4::text[]) AS c (receipt_id, version, held)
		WHERE s.receipt_id = l.receipt_id AND s.receipt_id = c.receipt_id AND s.claim_token = $1`, token, ids, versions, held)
	if err != nil {
		return fmt.Errorf("release deposit sweep claims: %w", err)
	}
	return nil
}

// Release implements settlement.SweepLedger: token's claims not in a sweep are freed as they
// were, their versions still due. A row tied to a sweep has no claim left (RecordSweep clears it).
func (d *DepositSweeps) Release(ctx context.Context, token uuid.UUID) error {
	_, err := d.pool.Exec(ctx, locked(`claim_token = $1 AND tx_id IS NULL`)+`UPDATE deposit_sweeps s
		SET claim_token = NULL, claimed_at = NULL FROM l WHERE s.receipt_id = l.receipt_id AND s.claim_token = $1`, token)
	if err != nil {
		return fmt.Errorf("release deposit sweep claims: %w", err)
	}
	return nil
}

// Renew implements settlement.SweepLedger. A claimed row not tied to a sweep is due (Claim takes
// only due rows, Checked and Release clear the claim), so the index deposit_sweeps_due finds
// token's claims without reading every deposit's row. Rows are locked in receipt order, as
// locked() does, skipping those held: a renewal never waits for, nor deadlocks with, a pass's
// statements or the projector's trigger.
func (d *DepositSweeps) Renew(ctx context.Context, token uuid.UUID) error {
	_, err := d.pool.Exec(ctx, `WITH l AS (SELECT receipt_id FROM deposit_sweeps WHERE due AND claim_token = $1
			ORDER BY receipt_id COLLATE "C" FOR UPDATE SKIP LOCKED)
		UPDATE deposit_sweeps s SET claimed_at = now() FROM l WHERE s.receipt_id = l.receipt_id AND s.claim_token = $1`, token)
	if err != nil {
		return fmt.Errorf("renew deposit sweep claims: %w", err)
	}
	return nil
}

// RecordSweep stores tx and ties token's claimed receipts to it in one transaction. Errors:
// settlement.ErrNonceTaken, settlement.ErrClaimLost, wrapped database errors.
func (d *DepositSweeps) RecordSweep(ctx context.Context, token uuid.UUID, tx settlement.OperatorTx, receipts []string) (int64, error) {
	var id int64
	err := pgx.BeginFunc(ctx, d.pool, func(t pgx.Tx) error {
		err := t.QueryRow(ctx, `INSERT INTO operator_transactions (sender, nonce, kind, tx_hash, raw_tx) VALUES ($1, $2, $3, $4, $5) RETURNING id`,
			tx.Sender, int64(tx.Nonce), settlement.TxSweep, tx.Hash, tx.Raw).Scan(&id)
		if err != nil {
			return err
		}
		tag, err := t.Exec(ctx, locked(`receipt_id = ANY($2) AND claim_token = $3 AND tx_id IS NULL`)+`UPDATE deposit_sweeps s
			SET tx_id = $1, claim_token = NULL, claimed_at = NULL, held_units = NULL, held_at = NULL FROM l
			WHERE s.receipt_id = l.receipt_id AND s.claim_token = $3 AND s.tx_id IS NULL`, id, receipts, token)
		if err != nil {
			return err
		}
		if tag.RowsAffected() != int64(len(receipts)) {
			return settlement.ErrClaimLost
		}
		return nil
	})
	return id, ledgerError("record sweep", err)
}

// OpenSweeps lists sender's sweeps whose outcome is not recorded on their receipts yet, by nonce,
// with the deposits each names (receipt and split, as signed). The operator transaction's own
// status does not decide it: another process settling the operator's transactions may have
// marked it mined already.
func (d *DepositSweeps) OpenSweeps(ctx context.Context, sender string) ([]settlement.OpenSweep, error) {
	rows, err := d.pool.Query(ctx, `SELECT t.id, t.nonce, t.tx_hash, t.raw_tx, s.receipt_id, coalesce(r.deposit_split, '')
		FROM deposit_sweeps s JOIN operator_transactions t ON t.id = s.tx_id JOIN receipts r ON r.receipt_id = s.receipt_id
		WHERE s.tx_id IS NOT NULL AND t.sender = $1 ORDER BY t.nonce, s.receipt_id`, sender)
	if err != nil {
		return nil, fmt.Errorf("open sweeps: %w", err)
	}
	defer rows.Close()
	var out []settlement.OpenSweep
	for rows.Next() {
		var tx settlement.OperatorTx
		var nonce int64
		var dep settlement.SweepDeposit
		if err := rows.Scan(&tx.ID, &nonce, &tx.Hash, &tx.Raw, &dep.ReceiptID, &dep.Split); err != nil {
			return nil, err
		}
		if n := len(out); n == 0 || out[n-1].Tx.ID != tx.ID {
			tx.Sender, tx.Nonce, tx.Kind, tx.Status = sender, uint64(nonce), settlement.TxSweep, settlement.TxSigned
			out = append(out, settlement.OpenSweep{Tx: tx})
		}
		out[len(out)-1].Deposits = append(out[len(out)-1].Deposits, dep)
	}
	return out, rows.Err()
}

// SettleSweep records the sweep mined (or reverted) and frees its receipts: those in stuck are
// checked at their current version, the others are checked again.
func (d *DepositSweeps) SettleSweep(ctx context.Context, id int64, status string, gasUsed uint64, stuck []string) error {
	err := pgx.BeginFunc(ctx, d.pool, func(t pgx.Tx) error {
		_, err := t.Exec(ctx, `UPDATE operator_transactions SET status = $2, gas_used = $3, settled_at = now() WHERE id = $1 AND status = 'signed'`,
			id, status, int64(gasUsed))
		if err != nil {
			return err
		}
		_, err = t.Exec(ctx, locked(`tx_id = $1`)+`UPDATE deposit_sweeps s SET tx_id = NULL,
			checked_version = CASE WHEN s.receipt_id = ANY($2) THEN coalesce((SELECT version FROM receipts r WHERE r.receipt_id = s.receipt_id), 0) ELSE 0 END
			FROM l WHERE s.receipt_id = l.receipt_id AND s.tx_id = $1`, id, stuck)
		return err
	})
	return ledgerError("settle sweep", err)
}
