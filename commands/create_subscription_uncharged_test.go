package commands_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/migrations/pgtest"
)

// readModelUncharged counts in the subscriptions read model as serve's wiring does
// (cmd/payledger/app): subscriptions of merchant created at or after since, never charged, not
// cancelled.
type readModelUncharged struct{ pool *pgxpool.Pool }

func (r readModelUncharged) UnchargedSince(ctx context.Context, merchant string, since time.Time) (int, time.Time, error) {
	var n int
	var oldest *int64
	err := r.pool.QueryRow(ctx, `SELECT count(*), min(created_at) FROM subscriptions
		WHERE merchant = $1 AND created_at >= $2 AND status <> 'cancelled'
		AND coalesce((state->>'charges')::bigint, 0) = 0`, strings.ToLower(merchant), since.UnixMilli()).Scan(&n, &oldest)
	if err != nil || oldest == nil {
		return n, time.Time{}, err
	}
	return n, time.UnixMilli(*oldest), nil
}

// TestCreateSubscriptionBoundsAMerchantsUnchargedSubscriptions: the per-address limit did not stop
// a botnet (20 creations an hour per address, any number of addresses), each subscription
// charged and failing with a webhook to the merchant. A merchant now has at most
// MaxUnchargedSubscriptionsPerHour subscriptions created within the hour and not charged yet:
// past it a creation is refused (ErrUnchargedLimited, until the oldest of them is an hour old)
// and writes nothing. Charged, cancelled and older subscriptions do not count, nor another
// merchant's.
func TestCreateSubscriptionBoundsAMerchantsUnchargedSubscriptions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	key, _ := crypto.GenerateKey()
	pool := pgtest.Pool(t)
	now := time.Now()
	e := subCreation{t: t, store: postgres.New(pool), key: key, customer: strings.ToLower(crypto.PubkeyToAddress(key.PublicKey).Hex())}
	e.h = commands.NewCreateSubscriptionHandler(e.store, subPlans{
		"plan_a": {ID: "plan_a", Merchant: "0x" + strings.Repeat("a", 40), Name: "A", Price: 999, Period: "MONTHLY", Active: true},
		"plan_b": {ID: "plan_b", Merchant: "0x" + strings.Repeat("b", 40), Name: "B", Price: 999, Period: "MONTHLY", Active: true},
	}, chain.SpendPermissions{ChainID: 8453, Manager: subManager}, subOperator, subUSDC, func() time.Time { return now })
	e.h.Uncharged = readModelUncharged{pool: pool}
	merchantA := "0x" + strings.Repeat("a", 40)
	insert := func(id string, at time.Time, status string, charges int) {
		if _, err := pool.Exec(ctx, `INSERT INTO subscriptions (subscription_id, plan_id, merchant, customer, status, next_charge_at, created_at, version, state)
			VALUES ($1, 'plan_a', $2, '0xc', $3, 0, $4, 1, $5)`, id, merchantA, status, at.UnixMilli(), fmt.Sprintf(`{"charges":%d}`, charges)); err != nil {
			t.Fatal(err)
		}
	}
	oldest := now.Add(-50 * time.Minute)
	for i := range commands.MaxUnchargedSubscriptionsPerHour - 1 {
		insert(fmt.Sprintf("fake%d", i), oldest.Add(time.Duration(i)*time.Second), "past_due", 0)
	}
	insert("charged", now.Add(-time.Minute), "active", 1)      // a real subscriber, charged
	insert("cancelled", now.Add(-time.Minute), "cancelled", 0) // cancelled by the merchant
	insert("old", now.Add(-61*time.Minute), "past_due", 0)     // more than an hour old
	create := func(plan, salt string) error {
		p := e.permission(plan)
		p.Salt = salt
		_, err := e.create(plan, p, e.sign(p))
		return err
	}
	if err := create("plan_a", "1"); err != nil { // the 100th
		t.Fatalf("the last uncharged subscription within the bound: %v", err)
	}
	insert("the100th", now, "active", 0) // as the projector writes it
	err := create("plan_a", "2")
	var limited *commands.UnchargedLimited
	if !errors.Is(err, commands.ErrUnchargedLimited) || !errors.As(err, &limited) || limited.ResetAt() != oldest.Add(time.Hour).UnixMilli() {
		t.Fatalf("past the bound: %v, want ErrUnchargedLimited until the oldest is an hour old", err)
	}
	var streams int
	if err := pool.QueryRow(ctx, `SELECT count(DISTINCT stream_id) FROM events`).Scan(&streams); err != nil {
		t.Fatal(err)
	}
	if streams != 1 {
		t.Fatalf("%d subscription streams written, want 1: the refused creation wrote one", streams)
	}
	if err := create("plan_b", "3"); err != nil {
		t.Fatalf("another merchant's plan: %v", err)
	}
	if _, err := pool.Exec(ctx, `UPDATE subscriptions SET status = 'cancelled' WHERE subscription_id = 'fake0'`); err != nil {
		t.Fatal(err)
	}
	if err := create("plan_a", "4"); err != nil {
		t.Fatalf("after the merchant cancelled one: %v", err)
	}
}
