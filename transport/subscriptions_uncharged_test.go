package transport

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/payledger/payledger/commands"
)

// TestSubscriptionCreationPastAMerchantsUnchargedBoundIs429: serve's creation refuses a creation
// when the plan's merchant has commands.MaxUnchargedSubscriptionsPerHour subscriptions created
// within the hour and not charged yet: 429 rate_limited with resetAt (when the oldest is an hour
// old) and Retry-After, and nothing created. Before the wiring, the creation was accepted.
func TestSubscriptionCreationPastAMerchantsUnchargedBoundIs429(t *testing.T) {
	t.Parallel()
	e := newLimitedSubEnv(t, 1000)
	customerKey, _ := crypto.GenerateKey()
	merchantKey, _ := crypto.GenerateKey()
	customer, merchant := walletOf(customerKey), walletOf(merchantKey)
	planID := e.plan(merchant, 1000, "MONTHLY", true)
	oldest := e.clk.Now().Add(-30 * time.Minute)
	for i := range commands.MaxUnchargedSubscriptionsPerHour {
		if _, err := e.pool.Exec(context.Background(), `INSERT INTO subscriptions (subscription_id, plan_id, merchant, customer, status, next_charge_at, created_at, version, state)
			VALUES ($1, $2, lower($3), '0xc', 'past_due', 0, $4, 1, '{"charges":0}')`, fmt.Sprintf("fake%d", i), planID, merchant,
			oldest.Add(time.Duration(i)*time.Second).UnixMilli()); err != nil {
			t.Fatal(err)
		}
	}
	p := permission(customer, planID)
	res, body := e.createFrom("192.0.2.70:4000", createBody(planID, customer, signPermission(t, customerKey, p), p))
	retry, _ := strconv.Atoi(res.Header.Get("Retry-After"))
	if res.StatusCode != http.StatusTooManyRequests || body["error"] != "rate_limited" ||
		body["resetAt"] != float64(oldest.Add(time.Hour).UnixMilli()) || retry < 1 {
		t.Fatalf("past the merchant's uncharged bound: %d %v (Retry-After %q), want 429 rate_limited until the oldest is an hour old",
			res.StatusCode, body, res.Header.Get("Retry-After"))
	}
	if n := e.subscriptionCount(); n != commands.MaxUnchargedSubscriptionsPerHour {
		t.Fatalf("%d subscriptions, want %d: the refused creation created one", n, commands.MaxUnchargedSubscriptionsPerHour)
	}
}
