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

func TestReadStreams(t *testing.T) {
	ctx := context.Background()
	s := postgres.New(pgtest.Pool(t))
	ev := func() eventstore.EventData {
		return eventstore.EventData{ID: uuid.New(), Type: "Tested", Data: []byte(`{"a":1}`)}
	}
	for i := range 3 {
		for v := range i + 1 {
			if _, err := s.Append(ctx, fmt.Sprintf("rs-%d", i), eventstore.Exact(uint64(v)), ev()); err != nil {
				t.Fatal(err)
			}
		}
	}
	got, err := s.ReadStreams(ctx, []string{"rs-2", "rs-0", "rs-missing", "rs-1"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got["rs-missing"] != nil {
		t.Fatalf("streams read: %d (%v); want 3 without rs-missing", len(got), got["rs-missing"])
	}
	for i := range 3 {
		id := fmt.Sprintf("rs-%d", i)
		want, err := s.ReadStream(ctx, id, 1, 100)
		if err != nil {
			t.Fatal(err)
		}
		evs := got[id]
		if len(evs) != len(want) {
			t.Fatalf("%s: %d events, want %d", id, len(evs), len(want))
		}
		for j := range evs {
			if evs[j].ID != want[j].ID || evs[j].Version != uint64(j+1) || evs[j].Position != want[j].Position || string(evs[j].Hash) != string(want[j].Hash) {
				t.Fatalf("%s event %d: %+v, want %+v", id, j, evs[j], want[j])
			}
		}
	}
	if got, err := s.ReadStreams(ctx, nil); err != nil || len(got) != 0 {
		t.Fatalf("no streams: %v %v", got, err)
	}
	// The heads read are current: an append expecting them goes through, a stale one is refused.
	if _, err := s.Append(ctx, "rs-1", eventstore.Exact(2), ev()); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append(ctx, "rs-0", eventstore.Exact(0), ev()); !errors.Is(err, eventstore.ErrWrongExpectedVersion) {
		t.Fatalf("stale expectation: %v", err)
	}
}
