package projections_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/projections"
)

// picky is a Filtered projector: it acts on "want-" streams only and counts every event it is
// handed, so a test can tell that the others never left PostgreSQL.
type picky struct{ handed *atomic.Int64 }

func (picky) Name() string { return "picky" }

func (picky) Relevant(e eventstore.RecordedEvent) bool { return strings.HasPrefix(e.StreamID, "want-") }

func (picky) Filter() ([]string, []string) { return []string{"want-"}, nil }

func (p picky) Apply(ctx context.Context, tx pgx.Tx, events []eventstore.RecordedEvent) error {
	p.handed.Add(int64(len(events)))
	return counting{}.Apply(ctx, tx, events)
}

func (picky) Reset(ctx context.Context, tx pgx.Tx) error { return counting{}.Reset(ctx, tx) }

var _ projections.Filtered = picky{}

func storedCheckpoint(t *testing.T, r *projections.Runner, pool interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}) eventstore.Position {
	t.Helper()
	var c, p int64
	if err := pool.QueryRow(context.Background(), `SELECT commit_pos, prepare_pos FROM projection_checkpoints WHERE name = $1`, r.Name()).Scan(&c, &p); err != nil {
		t.Fatal(err)
	}
	return eventstore.Position{Commit: uint64(c), Prepare: uint64(p)}
}

// TestFilteredProjectorReadsOnlyItsEvents: a Filtered projector on the PostgreSQL store is handed
// only the events that pass its filter, applies each once, and its position and stored checkpoint
// move over the filtered-out events (the checkpoint within skipFlush of a later read); a rebuild
// gives the same read model.
func TestFilteredProjectorReadsOnlyItsEvents(t *testing.T) {
	t.Parallel()
	pool, s := setup(t)
	handed := &atomic.Int64{}
	p := picky{handed: handed}
	r, _ := start(t, pool, s, p)
	ctx := context.Background()
	noise := func(n int) eventstore.Position {
		var last eventstore.Position
		for i := range n {
			res, err := s.Append(ctx, fmt.Sprintf("noise-%d", i%7), eventstore.Any(),
				eventstore.EventData{ID: uuid.New(), Type: "Happened", Data: []byte(`{}`)})
			if err != nil {
				t.Fatal(err)
			}
			last = res.Position
		}
		return last
	}
	for i := range 40 {
		if _, err := s.Append(ctx, fmt.Sprintf("want-%d", i%4), eventstore.Any(),
			eventstore.EventData{ID: uuid.New(), Type: "Happened", Data: []byte(`{}`)}); err != nil {
			t.Fatal(err)
		}
		noise(15)
	}
	last := noise(200) // the log ends with events the projector never sees
	waitFor(t, r, last)
	assertAppliedOnce(t, pool, 40)
	if n := handed.Load(); n != 40 {
		t.Fatalf("the projector was handed %d events, want only its 40", n)
	}
	// The stored checkpoint follows over filtered-out events: within skipFlush a later read, or the
	// idle flush, writes it.
	last = noise(5)
	deadline := time.Now().Add(15 * time.Second)
	for storedCheckpoint(t, r, pool).Less(last) {
		if time.Now().After(deadline) {
			t.Fatalf("stored checkpoint %s, want %s", storedCheckpoint(t, r, pool), last)
		}
		time.Sleep(20 * time.Millisecond)
	}
	before := snapshotApplied(t, pool)
	if err := projections.Rebuild(ctx, pool, p); err != nil {
		t.Fatal(err)
	}
	deadline = time.Now().Add(30 * time.Second)
	for {
		var n int
		_ = pool.QueryRow(ctx, `SELECT count(*) FROM applied`).Scan(&n)
		if n == 40 && !r.Position().Less(last) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("rebuild reached %d of 40 events", n)
		}
		time.Sleep(20 * time.Millisecond)
	}
	assertAppliedOnce(t, pool, 40)
	if after := snapshotApplied(t, pool); after != before {
		t.Fatalf("rebuilt read model differs:\n%s\nwant\n%s", after, before)
	}
	if n := handed.Load(); n != 80 {
		t.Fatalf("after the rebuild the projector was handed %d events, want 80", n)
	}
}

func snapshotApplied(t *testing.T, pool interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}) string {
	t.Helper()
	var s string
	if err := pool.QueryRow(context.Background(), `SELECT coalesce(string_agg(event_id::text || ':' || n, ',' ORDER BY event_id), '') FROM applied`).Scan(&s); err != nil {
		t.Fatal(err)
	}
	return s
}
