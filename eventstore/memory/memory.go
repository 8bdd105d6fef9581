// Package memory is an in-process event store for unit tests. It keeps everything in memory
// and follows the same contract as the PostgreSQL adapter.
package memory

import (
	"context"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/payledger/payledger/eventstore"
)

// Store is the in-memory adapter. The zero value is not usable; call New.
type Store struct {
	mu      sync.Mutex
	now     func() time.Time
	all     []eventstore.RecordedEvent
	streams map[string][]int // indexes into all
	results map[uuid.UUID]eventstore.AppendResult
	changed chan struct{} // closed and replaced on every append
}

var _ eventstore.Store = (*Store)(nil)

// New returns an empty store that stamps events with now.
func New(now func() time.Time) *Store {
	return &Store{
		now:     now,
		streams: map[string][]int{},
		results: map[uuid.UUID]eventstore.AppendResult{},
		changed: make(chan struct{}),
	}
}

// Append implements eventstore.Store.
func (s *Store) Append(_ context.Context, stream string, expected eventstore.ExpectedVersion, events ...eventstore.EventData) (eventstore.AppendResult, error) {
	if err := eventstore.Validate(stream, events); err != nil {
		return eventstore.AppendResult{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(events) == 0 {
		return eventstore.AppendResult{Version: uint64(len(s.streams[stream]))}, nil
	}
	if res, ok := s.results[events[0].ID]; ok {
		return res, nil
	}
	idx := s.streams[stream]
	version := uint64(len(idx))
	if !expected.Matches(version) {
		return eventstore.AppendResult{}, &eventstore.WrongExpectedVersionError{Stream: stream, Expected: expected, Actual: version}
	}
	var prev []byte
	if version > 0 {
		prev = s.all[idx[len(idx)-1]].Hash
	}
	recs, err := eventstore.Prepare(stream, version, prev, s.now(), events)
	if err != nil {
		return eventstore.AppendResult{}, err
	}
	for i := range recs {
		seq := uint64(len(s.all) + 1)
		recs[i].Position = eventstore.Position{Commit: seq, Prepare: seq}
		s.streams[stream] = append(s.streams[stream], len(s.all))
		s.all = append(s.all, recs[i])
	}
	last := recs[len(recs)-1]
	res := eventstore.AppendResult{Version: last.Version, Position: last.Position}
	for _, ev := range events {
		s.results[ev.ID] = res
	}
	close(s.changed)
	s.changed = make(chan struct{})
	return res, nil
}

// ReadStream implements eventstore.Store.
func (s *Store) ReadStream(_ context.Context, stream string, from uint64, limit int) ([]eventstore.RecordedEvent, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []eventstore.RecordedEvent
	for _, i := range s.streams[stream] {
		if e := s.all[i]; e.Version >= from && len(out) < limit {
			out = append(out, e)
		}
	}
	return out, nil
}

// Head implements eventstore.Store.
func (s *Store) Head(context.Context) (eventstore.Position, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.all) == 0 {
		return eventstore.Start, nil
	}
	return s.all[len(s.all)-1].Position, nil
}

// ReadAll implements eventstore.Store.
func (s *Store) ReadAll(_ context.Context, from eventstore.Position, limit int) ([]eventstore.RecordedEvent, error) {
	out, _ := s.readAll(from, limit)
	return out, nil
}

func (s *Store) readAll(from eventstore.Position, limit int) ([]eventstore.RecordedEvent, <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	start := int(from.Commit) // positions are 1-based sequence numbers
	if start > len(s.all) {
		start = len(s.all)
	}
	end := min(start+limit, len(s.all))
	return append([]eventstore.RecordedEvent(nil), s.all[start:end]...), s.changed
}

// Subscribe implements eventstore.Store.
func (s *Store) Subscribe(ctx context.Context, from eventstore.Position, handle func(context.Context, []eventstore.RecordedEvent) error) error {
	for {
		batch, changed := s.readAll(from, 500)
		if len(batch) > 0 {
			if err := handle(ctx, batch); err != nil {
				return err
			}
			from = batch[len(batch)-1].Position
			continue
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-changed:
		}
	}
}
