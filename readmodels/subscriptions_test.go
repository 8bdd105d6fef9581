package readmodels

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/payledger/payledger/domain/subscription"
	"github.com/payledger/payledger/migrations/pgtest"
)

// TestSubscriptionsNewestByMerchant: the newest n of one merchant's subscriptions, newest
// first (ties by id), none of another merchant's; ByMerchant stays oldest first.
func TestSubscriptionsNewestByMerchant(t *testing.T) {
	t.Parallel()
	pool := pgtest.Pool(t)
	ctx := context.Background()
	const merchant, other = "0x00000000000000000000000000000000000000aa", "0x00000000000000000000000000000000000000bb"
	for i := range 8 {
		m := merchant
		if i%4 == 3 {
			m = other
		}
		st := subscription.State{Exists: true, ID: fmt.Sprintf("sub_%d", i), Merchant: m, Customer: "0x01", Status: "active",
			CreatedAt: int64(1000 + i/2)} // two at each time: the tie is broken by id
		raw, _ := json.Marshal(st)
		if _, err := pool.Exec(ctx, `INSERT INTO subscriptions
			(subscription_id, plan_id, merchant, customer, status, next_charge_at, created_at, version, state)
			VALUES ($1, 'plan', $2, $3, $4, 0, $5, 1, $6)`, st.ID, st.Merchant, st.Customer, st.Status, st.CreatedAt, raw); err != nil {
			t.Fatal(err)
		}
	}
	subs := NewSubscriptions(pool)
	ids := func(list []subscription.State, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		out := ""
		for _, st := range list {
			out += st.ID + " "
		}
		return out
	}
	if got := ids(subs.NewestByMerchant(ctx, "0x00000000000000000000000000000000000000AA", 4)); got != "sub_6 sub_5 sub_4 sub_2 " {
		t.Errorf("newest 4: %s", got)
	}
	if got := ids(subs.NewestByMerchant(ctx, merchant, 0)); got != "" {
		t.Errorf("newest 0: %s", got)
	}
	if got := ids(subs.ByMerchant(ctx, merchant)); got != "sub_0 sub_1 sub_2 sub_4 sub_5 sub_6 " {
		t.Errorf("oldest first: %s", got)
	}
}
