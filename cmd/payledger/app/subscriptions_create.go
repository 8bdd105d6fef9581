package app

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payledger/payledger/commands"
)

// createSubscription is POST /api/subscriptions/create's use case, bounded: the permission must be
// chargeable its first period now (read on chain through the charging operator, when charging is
// configured), and a wallet holds commands.MaxLiveSubscriptionsPerPlan live subscriptions to a plan
// at most (the subscriptions read model).
func createSubscription(d Config, plans commands.SubscriptionPlans) *commands.CreateSubscriptionHandler {
	sc := d.Subscriptions
	h := commands.NewCreateSubscriptionHandler(d.Store, plans, sc.Signer, sc.Operator, sc.USDC, d.Now)
	h.Live = liveSubscriptions{pool: d.Pool}
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
