package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/conformance"
	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/migrations/pgtest"
)

func TestConformance(t *testing.T) {
	conformance.Run(t, conformance.Harness{
		New: func(t *testing.T) eventstore.Store { return postgres.New(pgtest.Pool(t)) },
		NewPausing: func(t *testing.T, pause func(context.Context)) eventstore.Store {
			return postgres.New(pgtest.Pool(t), postgres.WithBeforeCommit(pause))
		},
	})
}

// TestGroupCommit: concurrent appends share commits, and a stale expected version inside a shared
// commit fails only its own append; each append's companion commits exactly when it does.
func TestGroupCommit(t *testing.T) {
	pool := pgtest.Pool(t)
	s := postgres.New(pool)
	ctx := context.Background()
	if _, err := pool.Exec(ctx, `CREATE TABLE side (n int PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	ev := func() eventstore.EventData {
		return eventstore.EventData{ID: uuid.New(), Type: "Tested", Data: []byte(`{"a":1}`)}
	}
	if _, err := s.Append(ctx, "taken", eventstore.NoStream(), ev()); err != nil {
		t.Fatal(err)
	}
	const fresh, stale = 96, 16
	start := make(chan struct{})
	var wg sync.WaitGroup
	errs := make([]error, fresh+stale)
	results := make([]eventstore.AppendResult, fresh+stale)
	for i := range fresh + stale {
		wg.Go(func() {
			<-start
			stream := fmt.Sprintf("fresh-%d", i)
			if i >= fresh {
				stream = "taken" // expected empty, but it holds one event
			}
			// Each append's attachment is a row, written with the others of its commit in one
			// statement.
			results[i], errs[i] = s.AppendAttached(ctx, stream, eventstore.NoStream(), sideRow(i), ev(), ev())
		})
	}
	close(start)
	wg.Wait()
	for i, err := range errs {
		var wrong *eventstore.WrongExpectedVersionError
		switch {
		case i < fresh && (err != nil || results[i].Version != 2):
			t.Fatalf("fresh append %d: %v %+v", i, err, results[i])
		case i >= fresh && !errors.As(err, &wrong):
			t.Fatalf("stale append %d: %v, want a wrong-expected-version error", i, err)
		}
	}
	var events, commits int
	if err := pool.QueryRow(ctx, `SELECT count(*), count(DISTINCT tx_id) FROM events WHERE stream_id LIKE 'fresh-%'`).Scan(&events, &commits); err != nil {
		t.Fatal(err)
	}
	if events != 2*fresh {
		t.Fatalf("%d events stored, want %d", events, 2*fresh)
	}
	if commits >= fresh {
		t.Fatalf("%d appends took %d commits: nothing was grouped", fresh, commits)
	}
	t.Logf("%d appends in %d commits", fresh, commits)
	var sides, staleSides int
	if err := pool.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE n >= $1) FROM side`, fresh).Scan(&sides, &staleSides); err != nil {
		t.Fatal(err)
	}
	if sides != fresh || staleSides != 0 {
		t.Fatalf("attachments stored: %d (%d of failed appends), want %d and 0", sides, staleSides, fresh)
	}
	// Each append's position is that of its last event (read from the table: ReadAll may hold
	// back events while other transactions run anywhere in the cluster).
	rows, err := pool.Query(ctx, `SELECT DISTINCT ON (stream_id) stream_id, tx_id, seq FROM events
		WHERE stream_id LIKE 'fresh-%' ORDER BY stream_id, version DESC`)
	if err != nil {
		t.Fatal(err)
	}
	last := map[string]eventstore.Position{}
	for rows.Next() {
		var stream string
		var txID, seq int64
		if err := rows.Scan(&stream, &txID, &seq); err != nil {
			t.Fatal(err)
		}
		last[stream] = eventstore.Position{Commit: uint64(txID), Prepare: uint64(seq)}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for i := range fresh {
		if p := last[fmt.Sprintf("fresh-%d", i)]; p != results[i].Position {
			t.Fatalf("append %d answered position %v, stored %v", i, results[i].Position, p)
		}
	}
}

// sideRow is an append's attachment in the tests: a row of the table side.
type sideRow int

// QueueAll implements postgres.Attachment: the rows of one transaction in one statement.
func (sideRow) QueueAll(batch *pgx.Batch, all []postgres.Attachment) (func(eventstore.Position), error) {
	ns := make([]int32, len(all))
	for i, a := range all {
		ns[i] = int32(a.(sideRow))
	}
	batch.Queue(`INSERT INTO side (n) SELECT * FROM unnest($1::int[])`, ns)
	return nil, nil
}
