package projections_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/migrations/pgtest"
	"github.com/payledger/payledger/projections"
)

// counting records how often each event was applied.
type counting struct {
	// sabotage, when set, runs after the batch's writes and before the runner commits.
	sabotage func()
}

func (counting) Name() string { return "counting" }

func (c counting) Apply(ctx context.Context, tx pgx.Tx, events []eventstore.RecordedEvent) error {
	for _, e := range events {
		if _, err := tx.Exec(ctx, `INSERT INTO applied (event_id, n) VALUES ($1, 1)
			ON CONFLICT (event_id) DO UPDATE SET n = applied.n + 1`, e.ID.String()); err != nil {
			return err
		}
	}
	if c.sabotage != nil {
		c.sabotage()
	}
	return nil
}

func (counting) Reset(ctx context.Context, tx pgx.Tx) error {
	_, err := tx.Exec(ctx, `DELETE FROM applied`)
	return err
}

func setup(t *testing.T) (*pgxpool.Pool, *postgres.Store) {
	t.Helper()
	pool := pgtest.Pool(t)
	if _, err := pool.Exec(context.Background(), `CREATE TABLE applied (event_id uuid PRIMARY KEY, n int NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	return pool, postgres.New(pool)
}

func appendN(t *testing.T, s eventstore.Store, n int) eventstore.Position {
	t.Helper()
	var last eventstore.Position
	for i := range n {
		res, err := s.Append(context.Background(), fmt.Sprintf("s-%d", i%10), eventstore.Any(),
			eventstore.EventData{ID: uuid.New(), Type: "Happened", Data: []byte(`{}`)})
		if err != nil {
			t.Fatal(err)
		}
		last = res.Position
	}
	return last
}

// start runs a runner until the test ends; the returned stop ends it earlier and waits.
func start(t *testing.T, pool *pgxpool.Pool, s *postgres.Store, p projections.Projector) (*projections.Runner, func()) {
	t.Helper()
	r, err := projections.NewRunner(pool, s, p, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = r.Run(ctx) }()
	stop := func() { cancel(); <-done }
	t.Cleanup(stop)
	return r, stop
}

func waitFor(t *testing.T, r *projections.Runner, pos eventstore.Position) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := r.WaitFor(ctx, pos); err != nil {
		t.Fatal(err)
	}
}

func assertAppliedOnce(t *testing.T, pool *pgxpool.Pool, want int) {
	t.Helper()
	var rows, total, maxN int
	if err := pool.QueryRow(context.Background(), `SELECT count(*), coalesce(sum(n),0), coalesce(max(n),0) FROM applied`).Scan(&rows, &total, &maxN); err != nil {
		t.Fatal(err)
	}
	if rows != want || total != want || maxN != 1 {
		t.Fatalf("applied: %d events, %d applications, most for one event %d; want %d each once", rows, total, maxN, want)
	}
}

func TestAppliesEachEventOnceAndWaitFor(t *testing.T) {
	t.Parallel()
	pool, s := setup(t)
	r, _ := start(t, pool, s, counting{})
	last := appendN(t, s, 2500)
	waitFor(t, r, last)
	assertAppliedOnce(t, pool, 2500)
}

func TestKilledMidBatchAppliesNothingTwice(t *testing.T) {
	t.Parallel()
	sabotaged := map[string]func(func()) projections.Projector{
		"plain":     func(f func()) projections.Projector { return counting{sabotage: f} },
		"pipelined": func(f func()) projections.Projector { return pipelined{counting: counting{sabotage: f}} },
	}
	for name, proj := range sabotaged {
		t.Run(name, func(t *testing.T) {
			pool, s := setup(t)
			appendN(t, s, 300)
			ctx, cancel := context.WithCancel(context.Background())
			var batches atomic.Int32
			r, err := projections.NewRunner(pool, s, proj(func() {
				if batches.Add(1) == 1 {
					cancel() // dies between the read-model write and the commit
				}
			}), zerolog.Nop())
			if err != nil {
				t.Fatal(err)
			}
			if err := r.Run(ctx); !errors.Is(err, context.Canceled) {
				t.Fatalf("run ended with %v", err)
			}
			var n int
			if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM applied`).Scan(&n); err != nil || n != 0 {
				t.Fatalf("killed batch left %d rows (%v), want 0", n, err)
			}
			last := appendN(t, s, 200)
			r2, _ := start(t, pool, s, proj(nil))
			waitFor(t, r2, last)
			assertAppliedOnce(t, pool, 500)
		})
	}
}

func TestOneLeaderAmongInstancesAndTakeover(t *testing.T) {
	t.Parallel()
	pool, s := setup(t)
	a, stopA := start(t, pool, s, counting{})
	for deadline := time.Now().Add(10 * time.Second); !a.Leader(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("first runner never took the lead")
		}
	}
	b, _ := start(t, pool, s, counting{})
	last := appendN(t, s, 400)
	waitFor(t, a, last)
	waitFor(t, b, last) // b follows a's progress through the checkpoint table
	if !a.Leader() || b.Leader() {
		t.Fatalf("leaders: a=%v b=%v, want a alone", a.Leader(), b.Leader())
	}
	stopA()
	last = appendN(t, s, 100)
	waitFor(t, b, last)
	if !b.Leader() {
		t.Fatal("b caught up without leading")
	}
	assertAppliedOnce(t, pool, 500)
}

func TestRebuildReplaysToTheSameState(t *testing.T) {
	t.Parallel()
	pool, s := setup(t)
	r, _ := start(t, pool, s, counting{})
	last := appendN(t, s, 700)
	waitFor(t, r, last)
	if err := projections.Rebuild(context.Background(), pool, counting{}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		var n int
		_ = pool.QueryRow(context.Background(), `SELECT count(*) FROM applied`).Scan(&n)
		if n == 700 && !r.Position().Less(last) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("rebuild reached %d of 700 events", n)
		}
		time.Sleep(20 * time.Millisecond)
	}
	assertAppliedOnce(t, pool, 700)
}

func TestNewRunnerRejectsNilDependencies(t *testing.T) {
	t.Parallel()
	if _, err := projections.NewRunner(nil, nil, counting{}, zerolog.Nop()); err == nil {
		t.Fatal("want an error for missing dependencies")
	}
}

// pipelined is counting as a PipelinedProjector: a read with BEGIN (none with noReads), the
// writes with COMMIT.
type pipelined struct {
	counting
	noReads bool
}

func (p pipelined) QueueApply(events []eventstore.RecordedEvent, reads *pgx.Batch) func(*pgx.Batch) error {
	if !p.noReads {
		reads.Queue(`SELECT count(*) FROM applied`)
	}
	return func(writes *pgx.Batch) error {
		for _, e := range events {
			writes.Queue(`INSERT INTO applied (event_id, n) VALUES ($1, 1) ON CONFLICT (event_id) DO UPDATE SET n = applied.n + 1`, e.ID.String())
		}
		if p.sabotage != nil {
			p.sabotage() // between the reads and the writes
		}
		return nil
	}
}

func TestPipelinedAppliesEachEventOnce(t *testing.T) {
	t.Parallel()
	for _, p := range []pipelined{{}, {noReads: true}} {
		pool, s := setup(t)
		r, _ := start(t, pool, s, p)
		last := appendN(t, s, 1500)
		waitFor(t, r, last)
		assertAppliedOnce(t, pool, 1500)
	}
}

// TestCheckpointMovedCommitsNothing: when the checkpoint moves under a batch (a rebuild
// reset it), the batch's writes must not commit, or the replay would apply them a second time.
func TestCheckpointMovedCommitsNothing(t *testing.T) {
	t.Parallel()
	for _, noReads := range []bool{false, true} {
		t.Run(fmt.Sprintf("noReads=%v", noReads), func(t *testing.T) {
			checkpointMovedCommitsNothing(t, func(f func()) projections.Projector {
				return pipelined{noReads: noReads, counting: counting{sabotage: f}}
			})
		})
	}
	t.Run("plain", func(t *testing.T) {
		checkpointMovedCommitsNothing(t, func(f func()) projections.Projector { return counting{sabotage: f} })
	})
}

func checkpointMovedCommitsNothing(t *testing.T, proj func(sabotage func()) projections.Projector) {
	pool, s := setup(t)
	first, stopFirst := start(t, pool, s, counting{})
	waitFor(t, first, appendN(t, s, 100))
	stopFirst()
	last := appendN(t, s, 50)
	var batches atomic.Int32
	r, _ := start(t, pool, s, proj(func() {
		if batches.Add(1) != 1 {
			return
		}
		// A rebuild in the middle of this batch: read model emptied, checkpoint reset.
		if _, err := pool.Exec(context.Background(), `DELETE FROM applied`); err != nil {
			t.Error(err)
		}
		if _, err := pool.Exec(context.Background(), `UPDATE projection_checkpoints SET commit_pos = 0, prepare_pos = 0 WHERE name = 'counting'`); err != nil {
			t.Error(err)
		}
	}))
	waitFor(t, r, last)
	deadline := time.Now().Add(30 * time.Second)
	for {
		var n int
		_ = pool.QueryRow(context.Background(), `SELECT count(*) FROM applied`).Scan(&n)
		if n == 150 || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	assertAppliedOnce(t, pool, 150)
}
