package projections_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payledger/payledger/domain/subscription"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/projections"
)

func appendSubscriptionEvent(t *testing.T, s *postgres.Store, id string, e subscription.Event) eventstore.Position {
	t.Helper()
	data, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Append(context.Background(), subscription.Stream(id), eventstore.Any(),
		eventstore.EventData{ID: uuid.New(), Type: subscription.TypeOf(e), Data: data})
	if err != nil {
		t.Fatal(err)
	}
	return res.Position
}

func subscriptionRows(t *testing.T, pool *pgxpool.Pool) map[string]string {
	t.Helper()
	return rowTexts(t, pool, `SELECT subscription_id, status || ' ' || next_charge_at || ' ' || version || ' ' || state::text FROM subscriptions`)
}

// billingRows is subscription_billing, one text per subscription.
func billingRows(t *testing.T, pool *pgxpool.Pool) map[string]string {
	t.Helper()
	return rowTexts(t, pool, `SELECT subscription_id, period_index || ' ' || plan_id || ' ' || merchant || ' ' || customer || ' ' ||
		amount_units || ' ' || amount_cents || ' ' || platform_fee_cents || ' ' || transaction_hashes::text || ' ' ||
		to_char(charged_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') || '+00 ' || version FROM subscription_billing`)
}

// rowTexts runs sql, whose rows are (subscription id, text), into a map by id.
func rowTexts(t *testing.T, pool *pgxpool.Pool, sql string) map[string]string {
	t.Helper()
	rows, err := pool.Query(context.Background(), sql)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var id, row string
		if err := rows.Scan(&id, &row); err != nil {
			t.Fatal(err)
		}
		out[id] = row
	}
	return out
}

// TestSubscriptionsProjection: the row is the stream folded by the aggregate (charge, failures,
// past_due, cancel), each charge is a billing record (the plan price, 0.5% fee half-up), and a
// rebuild gives the same rows and records.
func TestSubscriptionsProjection(t *testing.T) {
	t.Parallel()
	pool, s := setup(t)
	ctx := context.Background()
	customer, merchant := "0x"+strings.Repeat("c", 40), "0x"+strings.Repeat("d", 40)
	created := func(id string) {
		appendSubscriptionEvent(t, s, id, subscription.Created{SubscriptionID: id, PlanID: "plan_1", Merchant: merchant, Customer: customer,
			Plan:       subscription.Plan{Name: "Pro", PriceUSD: 999, Period: subscription.Monthly, PeriodSeconds: 30 * 86400},
			PriceUnits: "9990000", CreatedAt: 1000, NextChargeAt: 1000})
	}
	created("sub_a")
	created("sub_b")
	appendSubscriptionEvent(t, s, "sub_a", subscription.Charged{PeriodIndex: 0, AmountUnits: "9990000",
		TransactionHashes: []string{"0x" + strings.Repeat("1", 64)}, ChargedAt: 2000, NextChargeAt: 1000 + 30*86400*1000})
	for i := 1; i <= 3; i++ {
		appendSubscriptionEvent(t, s, "sub_b", subscription.ChargeFailed{PeriodIndex: 0, Reason: "insufficient balance", Attempt: i, FailedAt: int64(2000 + i)})
	}
	appendSubscriptionEvent(t, s, "sub_b", subscription.PastDue{PeriodIndex: 0, At: 2003})
	last := appendSubscriptionEvent(t, s, "sub_a", subscription.Cancelled{By: customer, At: 3000})
	r, stop := start(t, pool, s, projections.Subscriptions{})
	waitFor(t, r, last)
	var aStatus, bStatus string
	var aNext int64
	if err := pool.QueryRow(ctx, `SELECT status, next_charge_at FROM subscriptions WHERE subscription_id = 'sub_a'`).Scan(&aStatus, &aNext); err != nil {
		t.Fatal(err)
	}
	if err := pool.QueryRow(ctx, `SELECT status FROM subscriptions WHERE subscription_id = 'sub_b'`).Scan(&bStatus); err != nil {
		t.Fatal(err)
	}
	if aStatus != "cancelled" || aNext != 1000+30*86400*1000 || bStatus != "past_due" {
		t.Fatalf("sub_a %s next %d, sub_b %s", aStatus, aNext, bStatus)
	}
	live := subscriptionRows(t, pool)
	bills := billingRows(t, pool)
	want := "0 plan_1 " + merchant + " " + customer + " 9990000 999 5 {0x" + strings.Repeat("1", 64) + "} 1970-01-01 00:00:02+00 2"
	if len(bills) != 1 || bills["sub_a"] != want {
		t.Fatalf("billing records %v, want sub_a: %s", bills, want)
	}
	stop()
	if err := projections.Rebuild(ctx, pool, projections.Subscriptions{}); err != nil {
		t.Fatal(err)
	}
	r, _ = start(t, pool, s, projections.Subscriptions{})
	waitFor(t, r, last)
	rebuilt := subscriptionRows(t, pool)
	if len(rebuilt) != 2 || rebuilt["sub_a"] != live["sub_a"] || rebuilt["sub_b"] != live["sub_b"] {
		t.Fatalf("rebuilt %v\nlive %v", rebuilt, live)
	}
	if rb := billingRows(t, pool); len(rb) != 1 || rb["sub_a"] != bills["sub_a"] {
		t.Fatalf("rebuilt billing records %v, live %v", rb, bills)
	}
}
