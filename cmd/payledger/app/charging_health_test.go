package app_test

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/cmd/payledger/app"
	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/migrations/pgtest"
	"github.com/payledger/payledger/settlement"
	"github.com/payledger/payledger/settlement/pgstore"
)

// downDue is the due subscriptions' query of a database that fails while down is set.
type downDue struct{ down *atomic.Bool }

func (d downDue) DueSubscriptions(context.Context, time.Time, string, int) ([]string, error) {
	if d.down.Load() {
		return nil, errors.New("due subscriptions: connection refused")
	}
	return nil, nil
}

// noChain is a configured charging chain that nothing in these runs calls (no subscription is due).
type noChain struct{ settlement.ChargeChain }

// TestFailedDailyChargingRunShowsInHealth: the daily charging worker is watched, and its loop goes
// on after a failed run (it is run again at the next tick), so /healthz said ok while the day's
// charges had failed (a node or the database down at charge time). A failed run now shows the
// worker stuck until a later run goes through.
func TestFailedDailyChargingRunShowsInHealth(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.Pool(t)
	store := postgres.New(pool)
	down := new(atomic.Bool)
	down.Store(true)
	charger := settlement.NewChargeSubscriptionsHandler(store, noChain{}, pgstore.NewSubscriptionCharges(pool), downDue{down},
		commands.NewSplits(store), time.Now)
	svc, err := app.Build(ctx, app.Config{Store: store, Pool: pool, Now: time.Now, Log: zerolog.Nop(), Metrics: noMetrics{},
		SecretsKey: bytes.Repeat([]byte{7}, 32), JournalPath: filepath.Join(t.TempDir(), "journal.jsonl"),
		Chain: app.Chain{Charger: charger, ChargeTick: 20 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = svc.Journal.Close() })
	runWorkers(t, svc)

	charging := func() bool { return slices.Contains(svc.Health.Check(), "subscription charging") }
	wait.Until(t, "the failed daily run shown in /healthz", 30*time.Second, charging)
	down.Store(false)
	wait.Until(t, "the worker recovered once a run went through", 30*time.Second, func() bool { return !charging() })
	for _, w := range svc.Health.Workers() {
		if w.Name == "subscription charging" && w.LastStep.IsZero() {
			t.Fatalf("the run that went through is not its last step: %+v", w)
		}
	}
}
