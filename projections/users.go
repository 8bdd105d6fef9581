package projections

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
)

// Users credits XP from receipt events (DESIGN 8):
//   - when a receipt becomes paid with a buyer wallet (the confirmation's, else the latest
//     submitted one), that wallet gains floor(totalUsd × xpPerDollar), once per receipt;
//   - xpPerDollar is the merchant's shop value when the receipt is first credited: 1 when the
//     merchant has no shop config or never stored the field, an explicit 0 gives none. Shop
//     configuration is not in the log, so the rate is kept per receipt in user_xp_rates, which a
//     rebuild does not empty: a rebuild gives the same XP;
//   - totalUsd is the total in dollars; an EUR receipt uses its latest quoted EUR/USD rate
//     (1 when it was never quoted);
//   - a full refund (refunded cents reach the total) takes the credit back, once;
//   - wallets are lower-case.
//
// Profiles, presence and follows are CRUD (readmodels.Users); Reset only zeroes XP.
type Users struct{}

var _ Projector = Users{}

// Name implements Projector.
func (Users) Name() string { return "users" }

// Reset implements Projector: every user's XP back to 0 and the per-receipt state emptied
// (the captured rates stay).
func (Users) Reset(ctx context.Context, tx pgx.Tx) error {
	if _, err := tx.Exec(ctx, `UPDATE users SET xp = 0 WHERE xp <> 0; DELETE FROM user_xp`); err != nil {
		return fmt.Errorf("users projector: reset: %w", err)
	}
	return nil
}

// Apply implements Projector.
func (u Users) Apply(ctx context.Context, tx pgx.Tx, events []eventstore.RecordedEvent) error {
	for _, e := range events {
		id, ok := strings.CutPrefix(e.StreamID, ReceiptStreamPrefix)
		if !ok || !xpRelevant(e.Type) {
			continue
		}
		ev, err := receipt.Decode(e.Type, e.Data)
		if errors.Is(err, receipt.ErrUnknownEvent) {
			continue
		}
		if err != nil {
			return fmt.Errorf("users projector: %s: %w", id, err)
		}
		if err := u.apply(ctx, tx, id, ev); err != nil {
			return fmt.Errorf("users projector: %s: %w", id, err)
		}
	}
	return nil
}

func xpRelevant(typ string) bool {
	switch typ {
	case receipt.EventGenerated, receipt.EventSubmitted, receipt.EventTokenQuoted, receipt.EventConfirmed, receipt.EventRefundProcessed:
		return true
	}
	return false
}

func (Users) apply(ctx context.Context, tx pgx.Tx, id string, ev receipt.Event) error {
	var err error
	switch e := ev.(type) {
	case receipt.Generated:
		_, err = tx.Exec(ctx, `INSERT INTO user_xp (receipt_id, merchant, currency, total_cents) VALUES ($1, $2, $3, $4)
			ON CONFLICT (receipt_id) DO NOTHING`, id, strings.ToLower(e.Merchant), e.Currency, int64(e.Total))
	case receipt.PaymentSubmitted:
		if e.BuyerWallet != "" {
			_, err = tx.Exec(ctx, `UPDATE user_xp SET buyer = $2 WHERE receipt_id = $1`, id, strings.ToLower(e.BuyerWallet))
		}
	case receipt.TokenQuoted:
		if e.EURUSDRate != "" {
			_, err = tx.Exec(ctx, `UPDATE user_xp SET eur_usd = $2 WHERE receipt_id = $1`, id, e.EURUSDRate)
		}
	case receipt.PaymentConfirmed:
		err = credit(ctx, tx, id, strings.ToLower(e.BuyerWallet))
	case receipt.RefundProcessed:
		err = refund(ctx, tx, id, e.AmountCents)
	}
	return err
}

// credit gives the receipt's XP to its buyer, unless it was credited already.
func credit(ctx context.Context, tx pgx.Tx, id, wallet string) error {
	var merchant, currency, buyer, eurUSD string
	var total int64
	var credited bool
	err := tx.QueryRow(ctx, `SELECT merchant, currency, total_cents, buyer, eur_usd, credited FROM user_xp WHERE receipt_id = $1 FOR UPDATE`, id).
		Scan(&merchant, &currency, &total, &buyer, &eurUSD, &credited)
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && credited) {
		return nil
	}
	if err != nil {
		return err
	}
	if wallet == "" {
		wallet = buyer
	}
	if wallet == "" {
		return nil
	}
	rate, err := xpRate(ctx, tx, id, merchant)
	if err != nil {
		return err
	}
	xp := XPFor(total, currency, eurUSD, rate)
	if _, err := tx.Exec(ctx, `UPDATE user_xp SET wallet = $2, xp = $3, credited = true WHERE receipt_id = $1`, id, wallet, xp); err != nil {
		return err
	}
	return addXP(ctx, tx, wallet, xp)
}

// refund adds a processed refund; once the whole total is back the credit is taken back.
func refund(ctx context.Context, tx pgx.Tx, id string, cents int64) error {
	var wallet string
	var xp int64
	var full, take bool
	err := tx.QueryRow(ctx, `UPDATE user_xp SET refunded_cents = refunded_cents + $2 WHERE receipt_id = $1
		RETURNING wallet, xp, refunded_cents >= total_cents, credited AND NOT debited`, id, cents).Scan(&wallet, &xp, &full, &take)
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && !(full && take)) {
		return nil
	}
	if err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `UPDATE user_xp SET debited = true, xp = 0 WHERE receipt_id = $1`, id); err != nil {
		return err
	}
	return addXP(ctx, tx, wallet, -xp)
}

func addXP(ctx context.Context, tx pgx.Tx, wallet string, xp int64) error {
	if xp == 0 {
		return nil
	}
	_, err := tx.Exec(ctx, `INSERT INTO users (wallet, xp) VALUES ($1, $2)
		ON CONFLICT (wallet) DO UPDATE SET xp = users.xp + excluded.xp`, wallet, xp)
	return err
}

// xpRate is the receipt's captured xpPerDollar, capturing the merchant's current value the
// first time (1 without a shop config or without the field).
func xpRate(ctx context.Context, tx pgx.Tx, id, merchant string) (string, error) {
	var rate string
	err := tx.QueryRow(ctx, `SELECT xp_per_dollar::text FROM user_xp_rates WHERE receipt_id = $1`, id).Scan(&rate)
	if err == nil {
		return rate, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return "", err
	}
	err = tx.QueryRow(ctx, `INSERT INTO user_xp_rates (receipt_id, xp_per_dollar)
		SELECT $1, coalesce((SELECT CASE WHEN jsonb_typeof(config->'xpPerDollar') = 'number' AND (config->>'xpPerDollar')::numeric >= 0
				THEN (config->>'xpPerDollar')::numeric END
			FROM shop_configs WHERE wallet = $2), 1)
		RETURNING xp_per_dollar::text`, id, merchant).Scan(&rate)
	return rate, err
}

// XPFor is floor(totalUsd × rate) for a receipt total in cents: EUR totals are converted with
// eurUSD (1 when empty or invalid). An invalid or negative rate gives 0.
func XPFor(totalCents int64, currency, eurUSD, rate string) int64 {
	r, ok := new(big.Rat).SetString(rate)
	if !ok || r.Sign() <= 0 || totalCents <= 0 {
		return 0
	}
	usd := new(big.Rat).SetFrac64(totalCents, 100)
	if currency == "EUR" {
		if fx, ok := new(big.Rat).SetString(eurUSD); ok && fx.Sign() > 0 {
			usd.Mul(usd, fx)
		}
	}
	v := usd.Mul(usd, r)
	return new(big.Int).Quo(v.Num(), v.Denom()).Int64() // both positive: Quo truncates = floor
}
