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
