package readmodels

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payledger/payledger/domain/subscription"
)

// Subscriptions reads the subscriptions read model (projections.Subscriptions).
type Subscriptions struct{ pool *pgxpool.Pool }

// NewSubscriptions returns the reader over pool.
func NewSubscriptions(pool *pgxpool.Pool) *Subscriptions { return &Subscriptions{pool: pool} }

// SubscriptionListMax bounds a list read.
const SubscriptionListMax = 1000

// ByCustomer lists the subscriptions of a customer wallet, oldest first.
func (s *Subscriptions) ByCustomer(ctx context.Context, wallet string) ([]subscription.State, error) {
	return s.list(ctx, `customer`, wallet)
}

// ByMerchant lists the subscriptions to a merchant wallet's plans, oldest first.
func (s *Subscriptions) ByMerchant(ctx context.Context, wallet string) ([]subscription.State, error) {
	return s.list(ctx, `merchant`, wallet)
}

// NewestByMerchant lists the newest n (at most SubscriptionListMax) subscriptions to a merchant
// wallet's plans, newest first (the index on merchant, created_at read backwards).
func (s *Subscriptions) NewestByMerchant(ctx context.Context, wallet string, n int) ([]subscription.State, error) {
	return s.query(ctx, `SELECT state FROM subscriptions WHERE merchant = $1
		ORDER BY created_at DESC, subscription_id DESC LIMIT $2`, wallet, min(max(n, 0), SubscriptionListMax))
}

func (s *Subscriptions) list(ctx context.Context, column, wallet string) ([]subscription.State, error) {
	return s.query(ctx, `SELECT state FROM subscriptions WHERE `+column+` = $1
		ORDER BY created_at, subscription_id LIMIT $2`, wallet, SubscriptionListMax)
}

// query reads the states sql selects for wallet ($1, lower-cased) and a limit ($2).
func (s *Subscriptions) query(ctx context.Context, sql, wallet string, limit int) ([]subscription.State, error) {
	rows, err := s.pool.Query(ctx, sql, strings.ToLower(wallet), limit)
	if err != nil {
		return nil, fmt.Errorf("list subscriptions: %w", err)
	}
	defer rows.Close()
	out := []subscription.State{}
	for rows.Next() {
		var raw []byte
		if err := rows.Scan(&raw); err != nil {
			return nil, err
		}
		var st subscription.State
		if err := json.Unmarshal(raw, &st); err != nil {
			return nil, fmt.Errorf("decode subscription: %w", err)
		}
		out = append(out, st)
	}
	return out, rows.Err()
}

// ChargeTotals is what a merchant's subscription charges brought in (USD): the billing records.
type ChargeTotals struct {
	Charges       int64
	VolumeCents   int64
	PlatformCents int64
}

// ChargeTotals sums wallet's billing records (projections.Subscriptions: one per
// SubscriptionCharged, migration 019) with charged_at in [from, to).
func (s *Subscriptions) ChargeTotals(ctx context.Context, wallet string, from, to time.Time) (ChargeTotals, error) {
	var t ChargeTotals
	err := s.pool.QueryRow(ctx, `SELECT count(*), coalesce(sum(amount_cents), 0), coalesce(sum(platform_fee_cents), 0)
		FROM subscription_billing WHERE merchant = lower($1) AND charged_at >= $2 AND charged_at < $3`,
		wallet, from, to).Scan(&t.Charges, &t.VolumeCents, &t.PlatformCents)
	if err != nil {
		return t, fmt.Errorf("subscription charge totals: %w", err)
	}
	return t, nil
}
