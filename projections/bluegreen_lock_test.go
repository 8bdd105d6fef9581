package projections_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/projections"
)

// lockedReads is the event store, counting the events a blue/green rebuild reads in the swap's
// transaction, under the live table's lock (ReadAllIn).
type lockedReads struct {
	*postgres.Store
	underLock atomic.Int64
}

func (l *lockedReads) ReadAllIn(ctx context.Context, tx pgx.Tx, from, to eventstore.Position, limit int) ([]eventstore.RecordedEvent, error) {
	evs, err := l.Store.ReadAllIn(ctx, tx, from, to, limit)
	l.underLock.Add(int64(len(evs)))
	return evs, err
}

// TestBlueGreenSwapReplaysOnlyWhatCameDuringItsLastCatchUp: once caught up with the live
// projector, a blue/green rebuild copies every row's listed_at into the shadow (one UPDATE of the
// whole table: seconds per 100,000 receipts), and the events the live projector applied meanwhile
// were all replayed under the swap's ACCESS EXCLUSIVE lock on receipts, which every order and
// status read waits on: on a large table under load, an outage of seconds to minutes where the
// runbook promises a wait for the swap itself. The rebuild now catches up again after that copy,
// and the rows it adds then keep their live listed_at too; here 20 orders made while the copy
// runs (held by a lock on the shadow) are replayed before the swap's lock, none under it.
func TestBlueGreenSwapReplaysOnlyWhatCameDuringItsLastCatchUp(t *testing.T) {
	t.Parallel()
	pool, s := setup(t)
	ctx := context.Background()
	r, _ := start(t, pool, s, projections.NewReceipts(nil))
	var last eventstore.Position
	for i := range 30 {
		last = generate(t, s, fmt.Sprintf("before-%d", i))
	}
	waitFor(t, r, last)
	const during = 20
	log := &lockedReads{Store: s}
	var once sync.Once
	released := make(chan error, 1)
	caughtUp := func(done uint64) {
		if done < 30 {
			return
		}
		once.Do(func() {
			// Caught up: the copy of listed_at comes next, and waits for this lock on the shadow
			// while orders keep coming and the live projector applies them.
			hold, err := pool.Begin(ctx)
			if err == nil {
				_, err = hold.Exec(ctx, `LOCK TABLE receipts_next IN SHARE MODE`)
			}
			if err != nil {
				released <- err
				return
			}
			go func() {
				defer func() { _ = hold.Rollback(context.Background()) }()
				var p eventstore.Position
				for i := range during {
					res, err := s.Append(ctx, projections.ReceiptStreamPrefix+fmt.Sprintf("during-%d", i), eventstore.NoStream(),
						generation(t, fmt.Sprintf("during-%d", i)))
					if err != nil {
						released <- err
						return
					}
					p = res.Position
				}
				wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
				defer cancel()
				released <- r.WaitFor(wctx, p)
			}()
		})
	}
	listed := func() map[string]time.Time {
		t.Helper()
		rows, err := pool.Query(ctx, `SELECT receipt_id, listed_at FROM receipts`)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]time.Time{}
		var id string
		var at time.Time
		if _, err := pgx.ForEachRow(rows, []any{&id, &at}, func() error { out[id] = at; return nil }); err != nil {
			t.Fatal(err)
		}
		return out
	}
	rebuilt := make(chan error, 1)
	go func() { rebuilt <- projections.RebuildReceiptsBlueGreen(ctx, pool, log, caughtUp) }()
	if err := <-released; err != nil {
		t.Fatal(err)
	}
	before := listed()
	if err := <-rebuilt; err != nil {
		t.Fatal(err)
	}
	after := listed()
	if len(before) != 30+during || len(after) != len(before) {
		t.Fatalf("%d receipts live before the swap, %d after; want %d", len(before), len(after), 30+during)
	}
	if n := log.underLock.Load(); n != 0 {
		t.Fatalf("the swap replayed %d events under the live table's lock; want none (the %d orders made while listed_at was copied are caught up before it)", n, during)
	}
	for id, at := range before {
		if !after[id].Equal(at) {
			t.Fatalf("receipt %s listed at %s after the rebuild, %s before", id, after[id], at)
		}
	}
}
