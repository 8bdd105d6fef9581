package app_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/payledger/payledger/internal/wait"
)

// TestHealthNamesAProjectorWhoseBatchWaitsForALock: a session left in a transaction that locked
// the receipts table against writes (an operator's psql, a maintenance script) stops the receipts
// projector without a failure: its batch waits for the lock as long as the session stays open.
// /healthz said ok and nothing was logged; now the projection is stuck once its batch has been
// under way for its bound (shortened here), logged with what it applies, and it recovers when the
// lock goes. (A table lock takes no transaction id, so the log's horizon does not hold the event
// back from the projector.)
func TestHealthNamesAProjectorWhoseBatchWaitsForALock(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc, pool, store, logs := stuckProjectorApp(t)
	runWorkers(t, svc)
	wait.Until(t, "the receipts projector leading", 30*time.Second, svc.Projections.Receipts.Leader)
	held, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = held.Rollback(ctx) }()
	if _, err := held.Exec(ctx, `LOCK TABLE receipts IN EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	res := appendGeneration(t, store, "held")
	wait.Until(t, "the receipts projection stuck on its batch waiting for the lock", 60*time.Second, func() bool {
		return slices.Contains(svc.Health.Check(), "receipts projection")
	})
	if out := logs.String(); !strings.Contains(out, `"worker":"receipts projection"`) ||
		!strings.Contains(out, "a batch of 1 events up to "+res.Position.String()+" under way since") {
		t.Fatalf("the stuck line does not say what waits:\n%s", out)
	}
	if err := held.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	wait.Until(t, "the receipts projection recovered once its batch commits", 30*time.Second, func() bool {
		return !slices.Contains(svc.Health.Check(), "receipts projection") && !svc.Projections.Receipts.Position().Less(res.Position)
	})
}

// TestHealthNamesAProjectorHeldBackByAnOpenTransaction: a transaction left open on the database
// with a transaction id (a psql session that wrote, or locked a row, and was left) holds back
// every event committed after it began: the projectors read nothing, fail nothing, and /healthz
// said ok for as long as it stayed open. Now a leader whose position has not moved for its bound
// while the log's head is past it is stuck, logged with both positions, and recovers when the
// transaction ends and the events are applied.
func TestHealthNamesAProjectorHeldBackByAnOpenTransaction(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc, pool, store, logs := stuckProjectorApp(t)
	runWorkers(t, svc)
	wait.Until(t, "the receipts projector leading", 30*time.Second, svc.Projections.Receipts.Leader)
	held, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = held.Rollback(ctx) }()
	if _, err := held.Exec(ctx, `SELECT pg_current_xact_id()`); err != nil {
		t.Fatal(err)
	}
	res := appendGeneration(t, store, "held-back")
	wait.Until(t, "the receipts projection stuck behind the open transaction", 60*time.Second, func() bool {
		return slices.Contains(svc.Health.Check(), "receipts projection")
	})
	if out := logs.String(); !strings.Contains(out, `"worker":"receipts projection"`) ||
		!strings.Contains(out, "while the log's head is "+res.Position.String()+": an older transaction left open") {
		t.Fatalf("the stuck line does not say what holds it:\n%s", out)
	}
	if err := held.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	wait.Until(t, "the receipts projection recovered once the events are applied", 30*time.Second, func() bool {
		return !slices.Contains(svc.Health.Check(), "receipts projection") && !svc.Projections.Receipts.Position().Less(res.Position)
	})
}
