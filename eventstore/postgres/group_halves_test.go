package postgres

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/migrations/pgtest"
)

// TestAStaleAppendInAFullFlushCostsFewCommits: one append whose expected version is stale, in a
// flush of 256, fails alone (a unique violation, which its own append turns into a
// wrong-expected-version error), the other 255 are stored, and finding it takes a few
// transactions by halves, not one commit per append of the flush (every caller of the flush
// waited through those one after the other).
func TestAStaleAppendInAFullFlushCostsFewCommits(t *testing.T) {
	pool := pgtest.Pool(t)
	s := New(pool)
	ctx := context.Background()
	ev := func() eventstore.EventData {
		return eventstore.EventData{ID: uuid.New(), Type: "Tested", Data: []byte(`{"a":1}`)}
	}
	if _, err := s.Append(ctx, "taken", eventstore.NoStream(), ev()); err != nil {
		t.Fatal(err)
	}
	const n, stale = 256, 85
	batch := make([]*appendCall, n)
	for i := range batch {
		stream := fmt.Sprintf("fresh-%d", i)
		if i == stale {
			stream = "taken" // prepared as the stream's first event, but it holds one already
		}
		recs, err := eventstore.Prepare(stream, 0, nil, time.Now(), []eventstore.EventData{ev()})
		if err != nil {
			t.Fatal(err)
		}
		batch[i] = &appendCall{Item: pendingAppend{recs: recs}}
	}
	s.flush(batch)
	for i, c := range batch {
		var pgErr *pgconn.PgError
		switch {
		case i == stale && !(errors.As(c.Err, &pgErr) && pgErr.Code == "23505"):
			t.Fatalf("the stale append: %v, want its unique violation", c.Err)
		case i != stale && (c.Err != nil || c.Result.Version != 1):
			t.Fatalf("fresh append %d: %v %+v", i, c.Err, c.Result)
		}
	}
	var events, commits int
	if err := pool.QueryRow(ctx, `SELECT count(*), count(DISTINCT tx_id) FROM events WHERE stream_id LIKE 'fresh-%'`).Scan(&events, &commits); err != nil {
		t.Fatal(err)
	}
	if events != n-1 {
		t.Fatalf("%d fresh events stored, want %d", events, n-1)
	}
	if commits > 16 { // halves: 8 here (128, 64, ..., 1); one by one it was 255
		t.Fatalf("the fresh appends of one flush took %d commits to find one stale append, want at most 16", commits)
	}
}

// TestAStaleHeadInAMultiStreamAppendCostsFewCommits: AppendStreams (the deposit detector's writes
// of a confirming block) with one stale cached head among 600 appends refuses that one alone and
// stores the others in a few transactions by halves; each went through Append one after the
// other (600 commits in a row for a block).
func TestAStaleHeadInAMultiStreamAppendCostsFewCommits(t *testing.T) {
	pool := pgtest.Pool(t)
	s, other := New(pool), New(pool)
	ctx := context.Background()
	ev := func() eventstore.EventData {
		return eventstore.EventData{ID: uuid.New(), Type: "Tested", Data: []byte(`{"a":1}`)}
	}
	const n, stale = 600, 417
	appends := make([]eventstore.StreamAppend, n)
	for i := range appends {
		stream := fmt.Sprintf("block-%d", i)
		if _, err := s.Append(ctx, stream, eventstore.NoStream(), ev()); err != nil {
			t.Fatal(err)
		}
		appends[i] = eventstore.StreamAppend{Stream: stream, Expected: eventstore.Exact(1), Events: []eventstore.EventData{ev()}}
	}
	if _, err := other.Append(ctx, appends[stale].Stream, eventstore.Exact(1), ev()); err != nil { // s's head of it is stale
		t.Fatal(err)
	}
	results, errs := s.AppendStreams(ctx, appends)
	for i, err := range errs {
		switch {
		case i == stale && !errors.Is(err, eventstore.ErrWrongExpectedVersion):
			t.Fatalf("the stale head's append: %v", err)
		case i != stale && (err != nil || results[i].Version != 2):
			t.Fatalf("append %d: %v %+v", i, err, results[i])
		}
	}
	var commits int
	if err := pool.QueryRow(ctx, `SELECT count(DISTINCT tx_id) FROM events WHERE stream_id LIKE 'block-%' AND version = 2`).Scan(&commits); err != nil {
		t.Fatal(err)
	}
	if commits > 24 { // halves: about log2(600); one by one it was 599
		t.Fatalf("the fresh appends took %d commits to find one stale head, want at most 24", commits)
	}
}
