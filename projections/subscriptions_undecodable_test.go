package projections_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/domain/subscription"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/projections"
)

// TestSubscriptionsProjectorStopsOnAnEventItDoesNotKnow: a subscription event of a type this
// build does not know (a newer build wrote it: a rollback, a rolling upgrade) stops the runner
// with ErrUndecodable naming it, as a receipt event does. The row stays at the last event it
// could apply and the checkpoint before the event. (The projector used to skip it and move the
// row's version past it: the read model, and the charger that lists due subscriptions from it,
// then showed a state the stream does not hold, e.g. active where a newer build had paused it.)
func TestSubscriptionsProjectorStopsOnAnEventItDoesNotKnow(t *testing.T) {
	t.Parallel()
	pool, s := setup(t)
	ctx := context.Background()
	const id = "sub_newer"
	good := appendSubscriptionEvent(t, s, id, subscription.Created{SubscriptionID: id, PlanID: "plan_1",
		Merchant: "0x" + strings.Repeat("d", 40), Customer: "0x" + strings.Repeat("c", 40),
		Plan:       subscription.Plan{Name: "Pro", PriceUSD: 999, Period: subscription.Monthly, PeriodSeconds: 30 * 86400},
		PriceUnits: "9990000", CreatedAt: 1000, NextChargeAt: 1000})
	r, err := projections.NewRunner(pool, s, projections.Subscriptions{}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	stopped := make(chan error, 1)
	go func() { stopped <- r.Run(runCtx) }()
	waitFor(t, r, good)

	if _, err := s.Append(ctx, subscription.Stream(id), eventstore.Exact(1),
		eventstore.EventData{ID: uuid.New(), Type: "SubscriptionPaused", Data: json.RawMessage(`{"pausedAt":2000}`)}); err != nil {
		t.Fatal(err)
	}
	select {
	case err = <-stopped:
	case <-time.After(60 * time.Second): // a guard only: the runner stops at its first try
		cancel()
		err = <-stopped
	}
	if !errors.Is(err, projections.ErrUndecodable) || !strings.Contains(err.Error(), subscription.Stream(id)+" version 2 (SubscriptionPaused)") {
		t.Fatalf("Run returned %v, want ErrUndecodable naming %s version 2", err, subscription.Stream(id))
	}
	var version int64
	if err := pool.QueryRow(ctx, `SELECT version FROM subscriptions WHERE subscription_id = $1`, id).Scan(&version); err != nil || version != 1 {
		t.Fatalf("the subscription's row is at version %d (%v), want 1: the event was skipped", version, err)
	}
	if p := r.Position(); p != good {
		t.Fatalf("the projector is at %v, want %v (before the event it cannot apply)", p, good)
	}
}
