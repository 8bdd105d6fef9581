package app

import (
	"context"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/migrations/pgtest"
)

// TestServeBoundsSubscriptionCreation: serve's creation of subscriptions checks the permission
// on chain through the charging operator and counts the wallet's live subscriptions to the plan
// in the read model (cancelled and ended ones, another plan's, another wallet's left out). Before,
// serve's creation had neither bound (settlement's TestCreateSubscriptionIsBoundedByFundsAndPerPlan
// shows what they refuse).
func TestServeBoundsSubscriptionCreation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.Pool(t)
	h := createSubscription(Config{Store: postgres.New(pool), Pool: pool, Now: time.Now, Log: zerolog.Nop(),
		Chain: Chain{ChargeOperator: noCharging{}}, Subscriptions: Subscriptions{Operator: "0x11"}}, planLookup{})
	if h.Funds == nil || h.Live == nil {
		t.Fatalf("serve's creation is not bounded: funds %v, live %v", h.Funds, h.Live)
	}
	const customer, other = "0x" + "aa", "0x" + "bb"
	rows := []struct{ id, plan, customer, status string }{
		{"s1", "plan_a", customer, "active"}, {"s2", "plan_a", customer, "past_due"}, {"s3", "plan_a", customer, "cancelled"},
		{"s4", "plan_a", customer, "ended"}, {"s5", "plan_b", customer, "active"}, {"s6", "plan_a", other, "active"},
	}
	for _, r := range rows {
		if _, err := pool.Exec(ctx, `INSERT INTO subscriptions (subscription_id, plan_id, merchant, customer, status, next_charge_at, created_at, version, state)
			VALUES ($1, $2, '0xm', $3, $4, 0, 0, 1, '{}')`, r.id, r.plan, r.customer, r.status); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := h.Live.LiveSubscriptions(ctx, customer, "plan_a"); err != nil || n != 2 {
		t.Fatalf("live subscriptions to plan_a: %d %v, want 2", n, err)
	}
}
