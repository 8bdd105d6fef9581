package settlement_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/internal/syncbuf"
	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/projections"
	"github.com/payledger/payledger/settlement"
	"github.com/payledger/payledger/settlement/pgstore"
)

// checkpointProgress is serve's DueProgress: the log's head and the subscriptions projector's
// stored checkpoint.
type checkpointProgress struct {
	pool  *pgxpool.Pool
	store *postgres.Store
}

func (c checkpointProgress) Head(ctx context.Context) (eventstore.Position, error) {
	return c.store.Head(ctx)
}

func (c checkpointProgress) Applied(ctx context.Context) (eventstore.Position, error) {
	var commit, prepare int64
	err := c.pool.QueryRow(ctx, `SELECT commit_pos, prepare_pos FROM projection_checkpoints WHERE name = 'subscriptions'`).Scan(&commit, &prepare)
	return eventstore.Position{Commit: uint64(commit), Prepare: uint64(prepare)}, err
}

// rebuildHeld is `payledger projections rebuild subscriptions` caught half-way: the read model
// emptied and its checkpoint reset, its replay held back (the projector stopped) until resumed.
func (e *chargeEnv) rebuildHeld() {
	e.tb.Helper()
	e.stopProjector()
	if err := projections.Rebuild(e.ctx, e.pool, projections.Subscriptions{}); err != nil {
		e.tb.Fatal(err)
	}
}

// A daily run that falls in a rebuild of the subscriptions read model lists nothing from it: it
// fails, logged, and runs again at the next tick, which charges the subscription once the replay
// has reached the log's head, and only once. Before, the run listed no one from the emptied
// model, counted as the day's run, and the subscription was charged a day late.
func TestChargeSubscriptionsDailyRunWaitsForTheRebuild(t *testing.T) {
	t.Parallel()
	e := newChargeEnv(t, 1)
	id := e.subscribe(e.dev.Accounts[0], "plan_monthly")
	e.listed(id)
	e.rebuildHeld()
	h := e.handler(nil)
	h.Progress, h.CatchUp = checkpointProgress{pool: e.pool, store: e.store}, 100*time.Millisecond
	logs := &syncbuf.Buffer{}
	h.Log = zerolog.New(logs)
	ctx, cancel := context.WithCancel(e.ctx)
	done := make(chan error, 1)
	go func() { done <- h.Run(ctx, func() bool { return true }, 24*time.Hour, 20*time.Millisecond) }()
	wait.Until(t, "a daily run to find the read model behind", 30*time.Second, func() bool {
		return strings.Count(logs.String(), "has not applied the event log up to its head") >= 2
	})
	if st := e.state(id); st.Charges != 0 {
		t.Fatalf("charged from the emptied read model: %+v", st)
	}
	e.startProjector() // the replay goes on
	wait.Until(t, "the subscription charged once the replay reached the head", 60*time.Second, func() bool { return e.state(id).Charges == 1 })
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Run returned %v", err)
	}
	if n := e.count(`SELECT count(*) FROM operator_transactions WHERE kind = 'spend'`); n != 1 || e.state(id).Charges != 1 {
		t.Fatalf("spends %d, charges %d: want one", n, e.state(id).Charges)
	}
	// The next run once the projector has applied the charge's own events (a run sooner finds
	// the model behind them, as it should: read_model_behind).
	progress := checkpointProgress{pool: e.pool, store: e.store}
	wait.Until(t, "the subscriptions projector at the log's head", 30*time.Second, func() bool {
		head, err1 := progress.Head(e.ctx)
		applied, err2 := progress.Applied(e.ctx)
		return err1 == nil && err2 == nil && !applied.Less(head)
	})
	run, err := h.ChargeDue(e.ctx, eventstore.Metadata{})
	if err != nil || run.Processed != 0 {
		t.Fatalf("the next run: %+v %v", run, err)
	}
}

// resetAfterFirstPage is the read model reset by a rebuild between a run's first page and its
// second (the replay held back).
type resetAfterFirstPage struct {
	due   settlement.DueSubscriptions
	e     *chargeEnv
	pages int
}

func (r *resetAfterFirstPage) DueSubscriptions(ctx context.Context, at time.Time, after string, limit int) ([]string, error) {
	if r.pages++; r.pages == 2 {
		r.e.rebuildHeld()
	}
	return r.due.DueSubscriptions(ctx, at, after, limit)
}

// A rebuild begun during a run (after its wait for the read model) fails the run at the next page
// listed from the emptied model: the first page's charge stands, the rest wait for the next run.
// Before, the run went through with one of two due subscriptions charged.
func TestChargeSubscriptionsRebuildDuringARunFailsIt(t *testing.T) {
	t.Parallel()
	e := newChargeEnv(t, 2)
	a, b := e.subscribe(e.dev.Accounts[0], "plan_monthly"), e.subscribe(e.dev.Accounts[1], "plan_monthly")
	e.listed(a, b)
	due := &resetAfterFirstPage{due: pgstore.NewSubscriptions(e.pool), e: e}
	h := settlement.NewChargeSubscriptionsHandler(e.store, e.op, pgstore.NewSubscriptionCharges(e.pool), due, commands.NewSplits(e.store), time.Now)
	h.Poll, h.Await, h.Limit = 50*time.Millisecond, 30*time.Second, 1
	h.Progress, h.CatchUp = checkpointProgress{pool: e.pool, store: e.store}, 100*time.Millisecond
	run, err := h.ChargeDue(e.ctx, eventstore.Metadata{})
	if !errors.Is(err, settlement.ErrReadModelBehind) || run.Succeeded != 1 {
		t.Fatalf("run during the rebuild: %+v %v, want one charge and ErrReadModelBehind", run, err)
	}
	var r *commands.Refusal // the cron route's 503 read_model_behind, not a 500
	if !errors.As(err, &r) || r.Kind != commands.KindUnavailable || r.Code != "read_model_behind" {
		t.Fatalf("the run's error %v is no 503 read_model_behind", err)
	}
	e.startProjector()
	first, second := a, b
	if e.state(a).Charges == 0 {
		first, second = b, a
	}
	wait.Until(t, "the replay to list the other subscription", 30*time.Second, func() bool {
		run, err = h.ChargeDue(e.ctx, eventstore.Metadata{})
		return err == nil
	})
	if run.Succeeded != 1 || e.state(first).Charges != 1 || e.state(second).Charges != 1 {
		t.Fatalf("the next run: %+v; charges %d and %d", run, e.state(first).Charges, e.state(second).Charges)
	}
}
