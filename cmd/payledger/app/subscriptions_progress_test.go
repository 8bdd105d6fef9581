package app

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/migrations/pgtest"
	"github.com/payledger/payledger/projections"
	"github.com/payledger/payledger/settlement"
)

// noCharging is a charging chain that is never called: the test only reads the handler's wiring.
type noCharging struct{ settlement.ChargeChain }

// TestChargingListsOnlyFromACaughtUpSubscriptionsModel: serve's charger is given the subscriptions
// projector's progress, which reads its stored checkpoint: at the log's head once the projector has
// applied it (a filtered projector writes it past the events it skips), back at the start when a
// rebuild resets the model (the daily run then waits, settlement.ErrReadModelBehind). Before,
// serve's charger had none, and a run during `projections rebuild subscriptions` listed from the
// emptied model.
func TestChargingListsOnlyFromACaughtUpSubscriptionsModel(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.Pool(t)
	store := postgres.New(pool)
	h := subscriptionCharger(Config{Store: store, Pool: pool, Now: time.Now, Log: zerolog.Nop(),
		Chain: Chain{ChargeOperator: noCharging{}}, Subscriptions: Subscriptions{Operator: "0x" + "11"}})
	if h == nil || h.Progress == nil {
		t.Fatal("serve's charger does not wait for the subscriptions read model")
	}
	if _, err := store.Append(ctx, "other-1", eventstore.Any(), eventstore.EventData{ID: uuid.New(), Type: "Other", Data: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	head, err := h.Progress.Head(ctx)
	if err != nil || head == eventstore.Start {
		t.Fatalf("head %v %v", head, err)
	}
	runner, err := projections.NewRunner(pool, store, projections.Subscriptions{}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); _ = runner.Run(runCtx) }()
	t.Cleanup(func() { cancel(); <-done })
	wait.Until(t, "the subscriptions checkpoint at the log's head", 15*time.Second, func() bool {
		at, err := h.Progress.Applied(ctx)
		return err == nil && !at.Less(head)
	})
	cancel()
	<-done
	if err := projections.Rebuild(ctx, pool, projections.Subscriptions{}); err != nil {
		t.Fatal(err)
	}
	if at, err := h.Progress.Applied(ctx); err != nil || at != eventstore.Start {
		t.Fatalf("after the reset: %v %v, want the start", at, err)
	}
}
