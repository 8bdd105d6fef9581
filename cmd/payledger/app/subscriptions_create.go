package app

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payledger/payledger/commands"
)

// createSubscription is POST /api/subscriptions/create's use case, bounded: the permission must be
// chargeable its first period now (read on chain through the charging operator, when charging is
// configured), a wallet holds commands.MaxLiveSubscriptionsPerPlan live subscriptions to a plan
// at most, and a merchant has commands.MaxUnchargedSubscriptionsPerHour new subscriptions not
// charged yet within an hour at most (the subscriptions read model).
func createSubscription(d Config, plans commands.SubscriptionPlans) *commands.CreateSubscriptionHandler {
	sc := d.Subscriptions
	h := commands.NewCreateSubscriptionHandler(d.Store, plans, sc.Signer, sc.Operator, sc.USDC, d.Now)
	h.Live = liveSubscriptions{pool: d.Pool}
	h.Uncharged = liveSubscriptions{pool: d.Pool}
	if d.Chain.ChargeOperator != nil {
		h.Funds = d.Chain.ChargeOperator
	}
	return h
}

// liveSubscriptions counts a customer's subscriptions to a plan that are neither cancelled nor
// ended, in the subscriptions read model (customer lower-case, as its projector writes it).
type liveSubscriptions struct{ pool *pgxpool.Pool }

func (l liveSubscriptions) LiveSubscriptions(ctx context.Context, customer, planID string) (int, error) {
	var n int
	err := l.pool.QueryRow(ctx, `SELECT count(*) FROM subscriptions
		WHERE customer = $1 AND plan_id = $2 AND status <> 'cancelled' AND status <> 'ended'`, customer, planID).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("live subscriptions: %w", err)
	}
	return n, nil
}

// UnchargedSince counts merchant's subscriptions created at or after since, never charged and
// not cancelled, and the creation time of the oldest (the read model's subscriptions_merchant
// index on (merchant, created_at); merchant lower-case, as the projector writes it).
func (l liveSubscriptions) UnchargedSince(ctx context.Context, merchant string, since time.Time) (int, time.Time, error) {
	var n int
	var oldest *int64
	err := l.pool.QueryRow(ctx, `SELECT count(*), min(created_at) FROM subscriptions
		WHERE merchant = $1 AND created_at >= $2 AND status <> 'cancelled'
		AND coalesce((state->>'charges')::bigint, 0) = 0`, strings.ToLower(merchant), since.UnixMilli()).Scan(&n, &oldest)
	if err != nil {
		return 0, time.Time{}, fmt.Errorf("uncharged subscriptions: %w", err)
	}
	if oldest == nil {
		return n, time.Time{}, nil
	}
	return n, time.UnixMilli(*oldest), nil
}
