package projections

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
)

// giveBack gives the credit a whole-order refund took back to its wallet, once, when a reorg took
// a refund off the chain (RefundReverted) and the order's refunds no longer reach the total: the
// receipt is paid again, its refund a claim to be proven again (a proof that comes takes the XP
// again, through refund). The XP is the credit's own (its total, currency, EUR/USD rate and
// captured xpPerDollar), so live and rebuilt XP agree. A revert that leaves the order refunded
// in whole (another refund covers it), or a receipt never debited, changes nothing.
func giveBack(ctx context.Context, tx pgx.Tx, id string, f receiptFacts) error {
	refunded := f.orderRefunded()
	if refunded >= f.total {
		return nil
	}
	var wallet, currency, eurUSD, rate string
	var total int64
	err := tx.QueryRow(ctx, `SELECT u.wallet, u.currency, u.total_cents, u.eur_usd, coalesce(r.xp_per_dollar::text, '1')
		FROM user_xp u LEFT JOIN user_xp_rates r ON r.receipt_id = u.receipt_id
		WHERE u.receipt_id = $1 AND u.credited AND u.debited FOR UPDATE OF u`, id).Scan(&wallet, &currency, &total, &eurUSD, &rate)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	xp := XPFor(total, currency, eurUSD, rate)
	if _, err := tx.Exec(ctx, `UPDATE user_xp SET refunded_cents = $2, debited = false, xp = $3 WHERE receipt_id = $1`, id, refunded, xp); err != nil {
		return err
	}
	return addXP(ctx, tx, wallet, xp)
}
