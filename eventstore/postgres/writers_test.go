package postgres_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/migrations/pgtest"
)

// TestOnlyAnnouncedWritersWriteEvents: events come only from a transaction that called
// events_writer() before its first write (migration 035), which the receipts applied at append
// rely on; the store's appends, single, grouped and by COPY, are such transactions.
func TestOnlyAnnouncedWritersWriteEvents(t *testing.T) {
	t.Parallel()
	pool := pgtest.Pool(t)
	ctx := context.Background()
	insert := `INSERT INTO events (event_id, stream_id, version, type, data, metadata, recorded_at, hash)
		VALUES ($1, 'raw-1', 1, 'Happened', '{}', '{}', now(), '\x00')`

	if _, err := pool.Exec(ctx, insert, uuid.New()); err == nil || !strings.Contains(err.Error(), "events_writer()") {
		t.Fatalf("an insert outside an announced writer: %v; want it refused", err)
	}
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `CREATE TEMP TABLE w (x int); INSERT INTO w VALUES (1)`); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `SELECT events_writer()`); err == nil || !strings.Contains(err.Error(), "first write") {
		t.Fatalf("events_writer() after a write: %v; want it refused", err)
	}
	_ = tx.Rollback(ctx)

	s := postgres.New(pool)
	if _, err := s.Append(ctx, "single-1", eventstore.NoStream(), eventstore.EventData{ID: uuid.New(), Type: "Happened", Data: []byte(`{}`)}); err != nil {
		t.Fatalf("the store's append: %v", err)
	}
	many := make([]eventstore.StreamAppend, 300) // enough for COPY
	for i := range many {
		many[i] = eventstore.StreamAppend{Stream: "many-" + uuid.NewString(), Expected: eventstore.NoStream(),
			Events: []eventstore.EventData{{ID: uuid.New(), Type: "Happened", Data: []byte(`{}`)}}}
	}
	if _, errs := s.AppendStreams(ctx, many); errs != nil {
		for _, err := range errs {
			if err != nil {
				t.Fatalf("the store's AppendStreams: %v", err)
			}
		}
	}
	var n int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM events`).Scan(&n); err != nil || n != 301 {
		t.Fatalf("%d events, %v; want 301", n, err)
	}
}

// TestCommittingWritersAreNeverExempted: while 16 writers commit with random pauses inside their
// transactions, no transaction id that events_writers_among leaves out (as a transaction that
// writes no events) ever holds an event. A committing transaction's lock rows can name two
// virtual transactions, and matching by them left out about five writers in 4,800 appends
// (without -race).
func TestCommittingWritersAreNeverExempted(t *testing.T) {
	t.Parallel()
	pool := pgtest.Pool(t)
	ctx := context.Background()
	s := postgres.New(pool, postgres.WithBeforeCommit(func(context.Context) {
		time.Sleep(time.Duration(rand.IntN(1500)) * time.Microsecond)
	}))
	exempted := map[int64]bool{}
	stop := make(chan struct{})
	checked := make(chan error, 1)
	go func() {
		for {
			select {
			case <-stop:
				checked <- nil
				return
			default:
			}
			rows, err := pool.Query(ctx, `WITH s AS MATERIALIZED (SELECT pg_current_snapshot() AS snap)
				SELECT x.id::text::bigint FROM pg_snapshot_xip((SELECT snap FROM s)) AS x(id)
				EXCEPT SELECT w.id::text::bigint FROM events_writers_among(ARRAY(SELECT pg_snapshot_xip((SELECT snap FROM s)))) AS w(id)`)
			if err != nil {
				checked <- err
				return
			}
			for rows.Next() {
				var id int64
				if err := rows.Scan(&id); err != nil {
					checked <- err
					return
				}
				exempted[id] = true
			}
			rows.Close()
		}
	}()
	var wg sync.WaitGroup
	for w := range 16 {
		wg.Go(func() {
			for range 500 {
				stream := fmt.Sprintf("w-%d", rand.IntN(64))
				if _, err := s.Append(ctx, stream, eventstore.Any(), eventstore.EventData{ID: uuid.New(), Type: "Happened", Data: []byte(`{}`)}); err != nil {
					t.Errorf("writer %d: %v", w, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(stop)
	if err := <-checked; err != nil {
		t.Fatal(err)
	}
	for id := range exempted {
		var n int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM events WHERE tx_id = $1`, id).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			t.Errorf("transaction %d was left out as writing no events, and holds %d", id, n)
		}
	}
}
