package postgres_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/migrations/pgtest"
)

// logReads counts the reads of the global log made as queries of their own (not in a batch):
// n when they start, ended when their result has come back.
type logReads struct{ n, ended atomic.Int64 }

type logReadKey struct{}

func (l *logReads) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	if strings.Contains(d.SQL, "pg_snapshot_xip") {
		l.n.Add(1)
		return context.WithValue(ctx, logReadKey{}, true)
	}
	return ctx
}

func (l *logReads) TraceQueryEnd(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryEndData) {
	if ctx.Value(logReadKey{}) != nil {
		l.ended.Add(1)
	}
}

// tracedPool is a pool on a fresh database whose reads of the log are counted.
func tracedPool(t *testing.T) (*pgxpool.Pool, *logReads) {
	t.Helper()
	base := pgtest.Pool(t)
	cfg, err := pgxpool.ParseConfig(base.Config().ConnString())
	if err != nil {
		t.Fatal(err)
	}
	reads := &logReads{}
	cfg.ConnConfig.Tracer = reads
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool, reads
}

// TestSubscribeReadAhead: a handler that queues the next read into its own round trip is handed
// every event once, in order, and the subscription makes no read of its own while the handler's
// reads find events; a handler that does not queue it (or whose read does not run) still gets
// everything, through the subscription's own reads.
func TestSubscribeReadAhead(t *testing.T) {
	pool, reads := tracedPool(t)
	s := postgres.New(pool, postgres.WithPollInterval(time.Hour))
	ctx := context.Background()
	const total = 2*postgres.SubscribeBatch + 500
	for i := 0; i < total; i += 100 {
		evs := make([]eventstore.EventData, 100)
		for j := range evs {
			evs[j] = eventstore.EventData{ID: uuid.New(), Type: "Tested", Data: []byte(`{}`)}
		}
		if _, err := s.Append(ctx, "s-"+uuid.NewString(), eventstore.NoStream(), evs...); err != nil {
			t.Fatal(err)
		}
	}
	// Any transaction open anywhere in the cluster hides newer events from the log's readers (a
	// parallel test package, say): wait until all of them are readable, so that every read below
	// sees everything after its position and the batches are the same on every run.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		visible, err := s.ReadAll(ctx, eventstore.Position{}, total+1)
		if err != nil {
			t.Fatal(err)
		}
		if len(visible) == total {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d events readable after a minute", len(visible), total)
		}
	}
	for _, queue := range []bool{true, false} {
		reads.n.Store(0)
		var got []eventstore.RecordedEvent
		batches := 0
		// The poll interval is an hour: a subscription that missed the read-ahead would wait, so
		// the subscription is bounded to fail instead of hanging.
		sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		err := s.SubscribeReadAhead(sctx, eventstore.Position{}, nil, func(ctx context.Context, batch []eventstore.RecordedEvent, queueNext func(*pgx.Batch)) error {
			got = append(got, batch...)
			batches++
			b := &pgx.Batch{}
			b.Queue("SELECT 1")
			if queue {
				queueNext(b)
			}
			if err := pool.SendBatch(ctx, b).Close(); err != nil {
				return err
			}
			if len(got) >= total {
				cancel()
			}
			return nil
		})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("queue=%v: %v after %d events in %d batches", queue, err, len(got), batches)
		}
		if len(got) != total || batches != 3 {
			t.Fatalf("queue=%v: %d events in %d batches, want %d in 3", queue, len(got), batches, total)
		}
		for i := 1; i < len(got); i++ {
			if !got[i-1].Position.Less(got[i].Position) {
				t.Fatalf("queue=%v: event %d at %s after %s", queue, i, got[i].Position, got[i-1].Position)
			}
		}
		want := int64(1) // the first read only: the handler's reads brought the rest
		if !queue {
			want = 3
		}
		if n := reads.n.Load(); n != want {
			t.Fatalf("queue=%v: the subscription read the log %d times itself, want %d", queue, n, want)
		}
	}
}

// TestSubscribeFloor: a subscriber that got past a position without being handed its events (they
// were applied at append time) is not handed them, and its wake-ups by this store's own appends
// read the log only when an append lies beyond that floor; later events all arrive, once.
func TestSubscribeFloor(t *testing.T) {
	pool, reads := tracedPool(t)
	s := postgres.New(pool, postgres.WithPollInterval(time.Hour), postgres.WithNotifyMode(postgres.NotifyOff))
	ctx := context.Background()
	var floor atomic.Pointer[eventstore.Position]
	zero := eventstore.Position{}
	floor.Store(&zero)
	// As a projector applied at append does (projections.ReceiptsAtAppend), the floor moves when
	// the append commits, before the append returns and wakes the subscription.
	var moveFloor atomic.Bool
	appendOne := func() eventstore.Position {
		atAppend := floorMove{moveFloor: &moveFloor, floor: &floor}
		res, err := s.AppendAttached(ctx, "floor-"+uuid.NewString(), eventstore.NoStream(), atAppend,
			eventstore.EventData{ID: uuid.New(), Type: "T", Data: []byte(`{}`)})
		if err != nil {
			t.Fatal(err)
		}
		return res.Position
	}
	got := make(chan eventstore.RecordedEvent, 100)
	floorReads := &atomic.Int64{} // calls of floor: one per turn of the subscription's loop
	sctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- s.SubscribeReadAhead(sctx, eventstore.Position{}, func() eventstore.Position { floorReads.Add(1); return *floor.Load() },
			func(_ context.Context, batch []eventstore.RecordedEvent, _ func(*pgx.Batch)) error {
				for _, e := range batch {
					got <- e
				}
				return nil
			})
	}()
	defer func() { cancel(); <-done }()
	// Its first read (of an empty log) has come back: it waits for a wake-up taken before it.
	waitUntil(t, "the subscription's first read of the log", func() bool { return reads.ended.Load() > 0 })
	before, turns := reads.n.Load(), floorReads.Load()
	moveFloor.Store(true)
	for range 5 { // "applied at append"
		appendOne()
	}
	// Woken by those appends, the subscription turns its loop at least once more (it reads the
	// floor first, then reads the log or not).
	waitUntil(t, "the subscription woken by the appends", func() bool { return floorReads.Load() > turns })
	if n := reads.n.Load() - before; n != 0 {
		t.Fatalf("woken by appends at or before the floor, the subscription read the log %d times", n)
	}
	moveFloor.Store(false)
	next := func(want eventstore.Position, what string) {
		t.Helper()
		select {
		case e := <-got:
			if e.Position != want {
				t.Fatalf("handed the event at %s, want only %s at %s", e.Position, what, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s never arrived", what)
		}
	}
	next(appendOne(), "the one beyond the floor")
	// Nothing else was handed: the next event to arrive is the one appended after it.
	next(appendOne(), "the event appended after it")
}

// waitUntil polls cond until it holds, failing the test after 10 s.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	wait.Until(t, what, 10*time.Second, cond)
}

// floorMove is an attachment that, once its transaction committed, moves floor to its end while
// moveFloor is set, as the receipts projection's at-append decorator moves its projector.
type floorMove struct {
	moveFloor *atomic.Bool
	floor     *atomic.Pointer[eventstore.Position]
}

// QueueAll implements postgres.Attachment.
func (f floorMove) QueueAll(batch *pgx.Batch, _ []any) (func(eventstore.Position), error) {
	batch.Queue("SELECT 1")
	return func(end eventstore.Position) {
		if f.moveFloor.Load() {
			f.floor.Store(&end)
		}
	}, nil
}
