package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/google/uuid"

	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/migrations/pgtest"
)

// testEvent is an event with fresh id and fixed data.
func testEvent() eventstore.EventData {
	return eventstore.EventData{ID: uuid.New(), Type: "Tested", Data: []byte(`{"a":1}`)}
}

// twoOnOne appends one event to each of n streams (prefix-0 ...) and returns, for each, an append
// of two more expecting that one.
func twoOnOne(t *testing.T, s *postgres.Store, prefix string, n int) []eventstore.StreamAppend {
	t.Helper()
	appends := make([]eventstore.StreamAppend, n)
	for i := range appends {
		stream := fmt.Sprintf("%s-%d", prefix, i)
		if _, err := s.Append(context.Background(), stream, eventstore.NoStream(), testEvent()); err != nil {
			t.Fatal(err)
		}
		appends[i] = eventstore.StreamAppend{Stream: stream, Expected: eventstore.Exact(1), Events: []eventstore.EventData{testEvent(), testEvent()}}
	}
	return appends
}

// Issue 38: appends to 5,000 streams in a few INSERTs; each is checked against its own expected
// version (a stale one, in the same INSERT as others, is refused alone), the hash chain and the
// versions are those of single appends, and an unknown stream goes through Append.
func TestAppendStreams(t *testing.T) {
	ctx := context.Background()
	s := postgres.New(pgtest.Pool(t))
	const n = 5000
	appends := twoOnOne(t, s, "as", n)
	appends[4321].Expected = eventstore.Exact(0) // stale
	appends = append(appends, eventstore.StreamAppend{Stream: "as-new", Expected: eventstore.NoStream(), Events: []eventstore.EventData{testEvent()}})
	results, errs := s.AppendStreams(ctx, appends)
	for i, err := range errs {
		switch {
		case i == 4321:
			if !errors.Is(err, eventstore.ErrWrongExpectedVersion) {
				t.Fatalf("stale expectation: %v", err)
			}
		case err != nil:
			t.Fatalf("append %d: %v", i, err)
		case results[i].Version != uint64(len(appends[i].Events))+map[bool]uint64{true: 0, false: 1}[i == n]:
			t.Fatalf("append %d: version %d", i, results[i].Version)
		}
	}
	for _, i := range []int{0, 4320, 4321, n - 1} {
		evs, err := s.ReadStream(ctx, appends[i].Stream, 1, 10)
		if err != nil {
			t.Fatal(err)
		}
		want := map[bool]int{true: 1, false: 3}[i == 4321]
		if len(evs) != want {
			t.Fatalf("%s: %d events, want %d", appends[i].Stream, len(evs), want)
		}
		if b := eventstore.VerifyChain(evs); b != nil {
			t.Fatalf("%s: %v", appends[i].Stream, b)
		}
		for j := 1; j < len(evs); j++ {
			if evs[j].ID != appends[i].Events[j-1].ID {
				t.Fatalf("%s: event %d is not the one appended", appends[i].Stream, j)
			}
		}
	}
}

// An event whose data is not JSON (or without an id or a type) is refused for its own append
// only, as Append refuses it, and its stream is left as it was; the others of the call go in.
func TestAppendStreamsRefusesInvalidEvents(t *testing.T) {
	ctx := context.Background()
	s := postgres.New(pgtest.Pool(t))
	ev := func(data string) eventstore.EventData {
		return eventstore.EventData{ID: uuid.New(), Type: "Tested", Data: []byte(data)}
	}
	bad := []eventstore.EventData{ev(`{"a":`), {ID: uuid.Nil, Type: "Tested", Data: []byte(`{}`)}, {ID: uuid.New(), Data: []byte(`{}`)}}
	var appends []eventstore.StreamAppend
	for i := range len(bad) + 1 {
		stream := fmt.Sprintf("inv-%d", i)
		if _, err := s.Append(ctx, stream, eventstore.NoStream(), ev(`{"a":1}`)); err != nil {
			t.Fatal(err)
		}
		evs := []eventstore.EventData{ev(`{"b": 2}`)}
		if i < len(bad) {
			evs = append(evs, bad[i])
		}
		appends = append(appends, eventstore.StreamAppend{Stream: stream, Expected: eventstore.Exact(1), Events: evs})
	}
	_, errs := s.AppendStreams(ctx, appends)
	for i, err := range errs {
		if i < len(bad) && !errors.Is(err, eventstore.ErrInvalidEvent) || i == len(bad) && err != nil {
			t.Fatalf("append %d: %v", i, err)
		}
		evs, err := s.ReadStream(ctx, appends[i].Stream, 1, 10)
		if want := map[bool]int{true: 1, false: 2}[i < len(bad)]; err != nil || len(evs) != want {
			t.Fatalf("%s: %d events (%v), want %d", appends[i].Stream, len(evs), err, want)
		}
	}
}

// A stream appended to by another process since this one cached its head fails its append alone,
// both in a small call (one INSERT) and in one large enough to go by COPY (a unique violation
// either way, then append by append); the others go in, and each result is where its events were
// stored. Both notify modes, since COPY's read-back carries the in-transaction NOTIFY.
func TestAppendStreamsStaleHeadConflictsAlone(t *testing.T) {
	ctx := context.Background()
	for _, n := range []int{3, 400} {
		for _, mode := range []postgres.NotifyMode{postgres.NotifyAfterCommit, postgres.NotifyInTx} {
			t.Run(fmt.Sprintf("%d-streams-mode-%d", n, mode), func(t *testing.T) {
				pool := pgtest.Pool(t)
				s, other := postgres.New(pool, postgres.WithNotifyMode(mode)), postgres.New(pool)
				appends := twoOnOne(t, s, "stale", n)
				stale := n / 2
				if _, err := other.Append(ctx, appends[stale].Stream, eventstore.Exact(1), testEvent()); err != nil {
					t.Fatal(err)
				}
				results, errs := s.AppendStreams(ctx, appends)
				for i, err := range errs {
					if i == stale {
						if !errors.Is(err, eventstore.ErrWrongExpectedVersion) {
							t.Fatalf("the stale head's append: %v", err)
						}
						continue
					}
					if err != nil {
						t.Fatalf("append %d: %v", i, err)
					}
					evs, err := s.ReadStream(ctx, appends[i].Stream, 1, 10)
					if err != nil || len(evs) != 3 {
						t.Fatalf("%s: %d events (%v)", appends[i].Stream, len(evs), err)
					}
					if last := evs[2]; results[i].Version != 3 || results[i].Position != last.Position || last.ID != appends[i].Events[1].ID {
						t.Fatalf("%s: result %+v, stored at %+v", appends[i].Stream, results[i], last.Position)
					}
				}
			})
		}
	}
}

// Two appends to one stream in one call, the second expecting the head the first leaves, both go
// in, as two Appends one after the other would (stop 60: the second was judged on the head before
// the first was stored and refused).
func TestAppendStreamsFollowOnAppendToOneStream(t *testing.T) {
	ctx := context.Background()
	s := postgres.New(pgtest.Pool(t))
	first := twoOnOne(t, s, "follow", 3) // follow-N at version 1, first[N] takes it to 3
	appends := []eventstore.StreamAppend{first[0], first[1],
		{Stream: first[0].Stream, Expected: eventstore.Exact(3), Events: []eventstore.EventData{testEvent()}}, first[2]}
	results, errs := s.AppendStreams(ctx, appends)
	for i, err := range errs {
		if err != nil {
			t.Fatalf("append %d to %s: %v", i, appends[i].Stream, err)
		}
	}
	if results[2].Version != 4 {
		t.Fatalf("the follow-on append: version %d, want 4", results[2].Version)
	}
	evs, err := s.ReadStream(ctx, first[0].Stream, 1, 10)
	if err != nil || len(evs) != 4 || eventstore.VerifyChain(evs) != nil {
		t.Fatalf("%s: %d events, %v", first[0].Stream, len(evs), err)
	}
}
