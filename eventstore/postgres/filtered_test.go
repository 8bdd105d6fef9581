package postgres_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/migrations/pgtest"
)

// TestSubscribeFiltered: a filtered subscription hands over exactly the events that pass the
// filter (stream-id prefix, `_` and `%` literal; type), in log order, none twice, across more
// than one read batch and while events keep being appended; the position it reports covered
// reaches the log's last event although that event is filtered out.
func TestSubscribeFiltered(t *testing.T) {
	pool := pgtest.Pool(t)
	s := postgres.New(pool, postgres.WithPollInterval(100*time.Millisecond))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	prefixes, types := []string{"keep-", "a_b-"}, []string{"Wanted"}
	appendRange := func(from, to int) eventstore.Position {
		var last eventstore.Position
		for i := from; i < to; i++ {
			stream := []string{"keep-", "a_b-", "axb-", "drop-", "keep-"}[i%5] + fmt.Sprint(i%13)
			var evs []eventstore.EventData
			for k := range 4 {
				typ := "Wanted"
				if (i+k)%3 == 0 {
					typ = "Other"
				}
				evs = append(evs, eventstore.EventData{ID: uuid.New(), Type: typ, Data: []byte(`{"i":1}`)})
			}
			res, err := s.Append(ctx, stream, eventstore.Any(), evs...)
			if err != nil {
				t.Fatal(err)
			}
			last = res.Position
		}
		return last
	}
	appendRange(0, 300) // 1,200 events before the subscription starts: more than one read
	var mu sync.Mutex
	var got []eventstore.RecordedEvent
	var covered eventstore.Position
	var problems []string
	done := make(chan error, 1)
	go func() {
		done <- s.SubscribeFiltered(ctx, eventstore.Position{}, prefixes, types, func(_ context.Context, batch []eventstore.RecordedEvent, upTo eventstore.Position) error {
			mu.Lock()
			defer mu.Unlock()
			if !covered.Less(upTo) {
				problems = append(problems, fmt.Sprintf("upTo %s after %s", upTo, covered))
			}
			for _, e := range batch {
				if !e.Position.Less(upTo) && e.Position != upTo || !covered.Less(e.Position) {
					problems = append(problems, fmt.Sprintf("event at %s outside (%s, %s]", e.Position, covered, upTo))
				}
			}
			covered = upTo
			got = append(got, batch...)
			return nil
		})
	}()
	last := appendRange(300, 600)
	last = appendRange(600, 604) // ends with a drop- stream: filtered out
	deadline := time.Now().Add(30 * time.Second)
	for {
		mu.Lock()
		reached := !covered.Less(last)
		mu.Unlock()
		if reached {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("covered %s, want %s", covered, last)
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	<-done
	all, err := s.ReadAll(context.Background(), eventstore.Position{}, 100_000)
	if err != nil {
		t.Fatal(err)
	}
	var want []eventstore.RecordedEvent
	for _, e := range all {
		if (strings.HasPrefix(e.StreamID, "keep-") || strings.HasPrefix(e.StreamID, "a_b-")) && e.Type == "Wanted" {
			want = append(want, e)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(problems) > 0 {
		t.Fatal(problems[0])
	}
	if len(got) != len(want) || len(want) < 900 {
		t.Fatalf("got %d events, want %d (of %d)", len(got), len(want), len(all))
	}
	for i := range want {
		if got[i].ID != want[i].ID || got[i].Position != want[i].Position || string(got[i].Data) != string(want[i].Data) ||
			got[i].StreamID != want[i].StreamID || got[i].Version != want[i].Version || string(got[i].Hash) != string(want[i].Hash) {
			t.Fatalf("event %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
}
