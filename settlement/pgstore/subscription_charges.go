package pgstore

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/settlement"
)

// SubscriptionCharges is the charge claims of subscriptions (migration 017: the operational
// claim, intent and outcome of each period) next to the operator's transaction ledger. The
// billing records are the subscriptions projection's (subscription_billing, migration 019).
type SubscriptionCharges struct{ pool *pgxpool.Pool }

var (
	_ settlement.ChargeLedger     = (*SubscriptionCharges)(nil)
	_ settlement.DueSubscriptions = (*Subscriptions)(nil)
)

// NewSubscriptionCharges returns the ledger on pool.
func NewSubscriptionCharges(pool *pgxpool.Pool) *SubscriptionCharges {
	return &SubscriptionCharges{pool: pool}
}

// NextNonce is one past the highest nonce recorded for sender, 0 when none.
func (s *SubscriptionCharges) NextNonce(ctx context.Context, sender string) (uint64, error) {
	return NewOperatorTransactions(s.pool).NextNonce(ctx, sender)
}

// Claim claims rows for token: new periods, and failed ones last updated retryAfter ago or more.
func (s *SubscriptionCharges) Claim(ctx context.Context, token uuid.UUID, rows []settlement.ChargeRow, retryAfter time.Duration) (map[string]bool, error) {
	out := map[string]bool{}
	if len(rows) == 0 {
		return out, nil
	}
	n := len(rows)
	ids, periods, merchants, customers := make([]string, n), make([]int64, n), make([]string, n), make([]string, n)
	units, cents, fees, attempts := make([]string, n), make([]int64, n), make([]int64, n), make([]int32, n)
	for i, r := range rows {
		ids[i], periods[i], merchants[i], customers[i] = r.SubscriptionID, r.Period, r.Merchant, r.Customer
		units[i], cents[i], fees[i], attempts[i] = r.AmountUnits, int64(r.AmountCents), int64(r.FeeCents), int32(r.Attempt)
	}
	got, err := s.pool.Query(ctx, `INSERT INTO subscription_charges AS c (subscription_id, period_index, merchant, customer,
			amount_units, amount_cents, platform_fee_cents, attempt, status, claim_token)
		SELECT u.id, u.period, u.merchant, u.customer, u.units::numeric, u.cents, u.fee, u.attempt, 'claimed', $9
		FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::bigint[], $8::int[])
			AS u(id, period, merchant, customer, units, cents, fee, attempt)
		ORDER BY u.id, u.period
		ON CONFLICT (subscription_id, period_index) DO UPDATE SET status = 'claimed', claim_token = $9,
			attempt = EXCLUDED.attempt, amount_units = EXCLUDED.amount_units, reason = NULL, approve_tx = NULL, spend_tx = NULL,
			transfer_tx = NULL, claimed_at = now(), updated_at = now()
		WHERE c.status = 'failed' AND c.updated_at <= now() - make_interval(secs => $10)
		RETURNING subscription_id`, ids, periods, merchants, customers, units, cents, fees, attempts, token, retryAfter.Seconds())
	if err != nil {
		return nil, fmt.Errorf("claim subscription charges: %w", err)
	}
	claimed, err := pgx.CollectRows(got, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("claim subscription charges: %w", err)
	}
	for _, id := range claimed {
		out[id] = true
	}
	return out, nil
}

func nullString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// lockOrder is the order in which a transaction locks rows' charges: by subscription and
// period, as Claim takes them. Another instance's Claim locks a conflicting row even when it may
// not take it (ON CONFLICT DO UPDATE ... WHERE), so an AdvanceAll that locked the same rows in
// another order could deadlock with it (TestChargeSubscriptionsTwoInstances: 40P01).
func lockOrder(rows []settlement.ChargeRow) []int {
	order := make([]int, len(rows))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		ra, rb := rows[order[a]], rows[order[b]]
		if ra.SubscriptionID != rb.SubscriptionID {
			return ra.SubscriptionID < rb.SubscriptionID
		}
		return ra.Period < rb.Period
	})
	return order
}

// Advance moves token's row from one of from to row.Status and records txs, atomically.
func (s *SubscriptionCharges) Advance(ctx context.Context, token uuid.UUID, row settlement.ChargeRow, from []string, txs []settlement.OperatorTx) error {
	return s.AdvanceAll(ctx, token, []settlement.ChargeRow{row}, from, [][]settlement.OperatorTx{txs})
}

// AdvanceAll is Advance for many rows in one transaction and one round trip (all or nothing).
func (s *SubscriptionCharges) AdvanceAll(ctx context.Context, token uuid.UUID, rows []settlement.ChargeRow, from []string, txs [][]settlement.OperatorTx) error {
	err := pgx.BeginFunc(ctx, s.pool, func(t pgx.Tx) error {
		b := &pgx.Batch{}
		for _, i := range lockOrder(rows) {
			row := rows[i]
			b.Queue(`UPDATE subscription_charges SET status = $4, split_address = coalesce(nullif($5, ''), split_address),
					approve_tx = $6, spend_tx = $7, transfer_tx = $8, updated_at = now()
				WHERE subscription_id = $1 AND period_index = $2 AND claim_token = $3 AND status = ANY($9)`,
				row.SubscriptionID, row.Period, token, row.Status, row.Split, nullString(row.ApproveTx), nullString(row.SpendTx),
				nullString(row.TransferTx), from).Exec(func(tag pgconn.CommandTag) error {
				if tag.RowsAffected() == 0 {
					return settlement.ErrClaimLost
				}
				return nil
			})
			for _, tx := range txs[i] {
				b.Queue(`INSERT INTO operator_transactions (sender, nonce, kind, tx_hash, raw_tx, split_address, token, payee)
					VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, tx.Sender, int64(tx.Nonce), tx.Kind, tx.Hash, tx.Raw, tx.Split, tx.Token, tx.Payee)
			}
		}
		return t.SendBatch(ctx, b).Close()
	})
	if errors.Is(err, settlement.ErrClaimLost) {
		return settlement.ErrClaimLost
	}
	return ledgerError("advance subscription charges", err)
}

// RecordRelease records a release the charging run signed.
func (s *SubscriptionCharges) RecordRelease(ctx context.Context, tx settlement.OperatorTx) error {
	_, err := NewOperatorTransactions(s.pool).Record(ctx, tx, nil)
	return err
}

// Finish closes token's row as charged (the billing record, at) or failed.
func (s *SubscriptionCharges) Finish(ctx context.Context, token uuid.UUID, row settlement.ChargeRow, status, reason string, at time.Time) error {
	var chargedAt *time.Time
	if status == settlement.ChargeCharged {
		chargedAt = &at
	}
	tag, err := s.pool.Exec(ctx, `UPDATE subscription_charges SET status = $4, reason = $5, charged_at = $6, updated_at = now(),
			approve_tx = coalesce($7, approve_tx), spend_tx = coalesce($8, spend_tx), transfer_tx = coalesce($9, transfer_tx)
		WHERE subscription_id = $1 AND period_index = $2 AND claim_token = $3 AND status NOT IN ('charged', 'failed')`,
		row.SubscriptionID, row.Period, token, status, nullString(reason), chargedAt, nullString(row.ApproveTx), nullString(row.SpendTx), nullString(row.TransferTx))
	if err != nil {
		return fmt.Errorf("finish subscription charge: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return settlement.ErrClaimLost
	}
	return nil
}

// Drop deletes token's row while nothing was signed for it.
func (s *SubscriptionCharges) Drop(ctx context.Context, token uuid.UUID, subscriptionID string, period int64) error {
	tag, err := s.pool.Exec(ctx, `DELETE FROM subscription_charges WHERE subscription_id = $1 AND period_index = $2
		AND claim_token = $3 AND status = 'claimed'`, subscriptionID, period, token)
	if err != nil {
		return fmt.Errorf("drop subscription charge: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return settlement.ErrClaimLost
	}
	return nil
}

// TakeOver gives token the open rows untouched for stale (of subscriptionID, "" any), with the
// raw bytes of their transactions not known mined: still signed, or recorded reverted with no gas
// used, which is how the split distributor's settle pass (OperatorSender.Settle, every few
// seconds, over every kind of the key's transactions) records one whose nonce another
// transaction took. A mined transaction, even a reverted one, always used gas. Without those, a
// charge whose approval, spend or transfer that pass recorded dropped first (the recovery waits
// for the charge's lease) was awaited for ever: its period held, and a dropped transfer left the
// customer debited with no charge in the log.
func (s *SubscriptionCharges) TakeOver(ctx context.Context, token uuid.UUID, stale time.Duration, subscriptionID string, limit int) ([]settlement.ChargeRow, error) {
	rows, err := s.pool.Query(ctx, `WITH taken AS (
			UPDATE subscription_charges c SET claim_token = $1, updated_at = now()
			WHERE (subscription_id, period_index) IN (SELECT subscription_id, period_index FROM subscription_charges
				WHERE status NOT IN ('charged', 'failed') AND updated_at <= now() - make_interval(secs => $2)
				  AND ($3 = '' OR subscription_id = $3)
				ORDER BY updated_at LIMIT $4 FOR UPDATE SKIP LOCKED)
			RETURNING subscription_id, period_index, merchant, customer, split_address, amount_units::text, amount_cents,
				platform_fee_cents, attempt, status, coalesce(approve_tx, '') AS approve, coalesce(spend_tx, '') AS spend,
				coalesce(transfer_tx, '') AS transfer)
		SELECT t.*, coalesce((SELECT array_agg(o.raw_tx ORDER BY o.nonce) FROM operator_transactions o
				WHERE o.tx_hash IN (t.approve, t.spend, t.transfer) AND `+notKnownMined+`), '{}'),
			coalesce((SELECT array_agg(o.tx_hash ORDER BY o.nonce) FROM operator_transactions o
				WHERE o.tx_hash IN (t.approve, t.spend, t.transfer) AND `+notKnownMined+`), '{}')
		FROM taken t`, token, stale.Seconds(), subscriptionID, limit)
	if err != nil {
		return nil, fmt.Errorf("take over subscription charges: %w", err)
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (settlement.ChargeRow, error) {
		var c settlement.ChargeRow
		var cents, fee int64
		var raws [][]byte
		var hashes []string
		err := r.Scan(&c.SubscriptionID, &c.Period, &c.Merchant, &c.Customer, &c.Split, &c.AmountUnits, &cents, &fee, &c.Attempt,
			&c.Status, &c.ApproveTx, &c.SpendTx, &c.TransferTx, &raws, &hashes)
		c.AmountCents, c.FeeCents = money.Cents(cents), money.Cents(fee)
		c.Raws = map[string][]byte{}
		for i := range hashes {
			c.Raws[hashes[i]] = raws[i]
		}
		return c, err
	})
}

// notKnownMined is TakeOver's condition on an operator transaction o: signed, or recorded dropped
// (reverted with no gas used).
const notKnownMined = `(o.status = 'signed' OR (o.status = 'reverted' AND coalesce(o.gas_used, 0) = 0))`

// SettleTxs records mined operator transactions (those still signed).
func (s *SubscriptionCharges) SettleTxs(ctx context.Context, txs []settlement.SettledTx) error {
	if len(txs) == 0 {
		return nil
	}
	hashes, statuses, gas, amounts := make([]string, len(txs)), make([]string, len(txs)), make([]int64, len(txs)), make([]string, len(txs))
	for i, t := range txs {
		hashes[i], statuses[i], gas[i], amounts[i] = t.Hash, t.Status, int64(t.GasUsed), t.Amount
	}
	_, err := s.pool.Exec(ctx, `UPDATE operator_transactions o SET status = u.status, gas_used = u.gas,
			amount = nullif(u.amount, '')::numeric, settled_at = now()
		FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[]) AS u(hash, status, gas, amount)
		WHERE o.tx_hash = u.hash AND o.status = 'signed'`, hashes, statuses, gas, amounts)
	if err != nil {
		return fmt.Errorf("settle operator transactions: %w", err)
	}
	return nil
}

// undistributedPerSplit bounds one split's rows in a page of Undistributed: a release pays out
// everything due at the split, so a few of its rows stand for it; a split whose release keeps
// failing (its rows kept for ever) filled the whole page with its oldest rows once it had that
// many, and no other merchant's newer charges were released.
const undistributedPerSplit = 100

// Undistributed lists charged rows whose split was not released yet, oldest first, at most
// undistributedPerSplit of each split.
func (s *SubscriptionCharges) Undistributed(ctx context.Context, limit int) ([]settlement.ChargeRow, error) {
	rows, err := s.pool.Query(ctx, `SELECT subscription_id, period_index, merchant, split_address FROM (
			SELECT subscription_id, period_index, merchant, split_address, charged_at,
				row_number() OVER (PARTITION BY split_address ORDER BY charged_at, subscription_id, period_index) AS n
			FROM subscription_charges WHERE status = 'charged' AND distributed_at IS NULL) c
		WHERE n <= $2 ORDER BY charged_at, subscription_id, period_index LIMIT $1`, limit, undistributedPerSplit)
	if err != nil {
		return nil, fmt.Errorf("undistributed subscription charges: %w", err)
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (settlement.ChargeRow, error) {
		var c settlement.ChargeRow
		err := r.Scan(&c.SubscriptionID, &c.Period, &c.Merchant, &c.Split)
		return c, err
	})
}

// MarkDistributed marks rows released.
func (s *SubscriptionCharges) MarkDistributed(ctx context.Context, rows []settlement.ChargeRow) error {
	if len(rows) == 0 {
		return nil
	}
	ids, periods := make([]string, len(rows)), make([]int64, len(rows))
	for i, r := range rows {
		ids[i], periods[i] = r.SubscriptionID, r.Period
	}
	_, err := s.pool.Exec(ctx, `UPDATE subscription_charges c SET distributed_at = now()
		FROM unnest($1::text[], $2::bigint[]) AS u(id, period)
		WHERE c.subscription_id = u.id AND c.period_index = u.period AND c.distributed_at IS NULL`, ids, periods)
	if err != nil {
		return fmt.Errorf("mark subscription charges distributed: %w", err)
	}
	return nil
}

// DueSubscriptions lists the subscriptions neither cancelled nor ended (a permission revoked on
// chain: never charged again) whose next charge is due at at and whose
// permission has not ended by at (migration 037: one that has can never be charged again), a page
// of at most limit in subscription id order after the id after ("" from the start).
func (s *Subscriptions) DueSubscriptions(ctx context.Context, at time.Time, after string, limit int) ([]string, error) {
	rows, err := s.pool.Query(ctx, `SELECT subscription_id FROM subscriptions
		WHERE status <> 'cancelled' AND status <> 'ended' AND next_charge_at <= $1 AND permission_end > $2 AND subscription_id > $3
		ORDER BY subscription_id LIMIT $4`, at.UnixMilli(), at.Unix(), after, limit)
	if err != nil {
		return nil, fmt.Errorf("due subscriptions: %w", err)
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}
