// Package commands holds the command handlers of the write side. Every command goes through one
// pipeline: load the aggregate from its stream, decide, append with the expected version, and
// retry from a fresh load when another writer got there first.
package commands

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"github.com/payledger/payledger/eventstore"
)

// Store is the part of the event store commands use.
type Store interface {
	Append(ctx context.Context, stream string, expected eventstore.ExpectedVersion, events ...eventstore.EventData) (eventstore.AppendResult, error)
	ReadStream(ctx context.Context, stream string, from uint64, limit int) ([]eventstore.RecordedEvent, error)
}

// Aggregate says how to fold a stream into state S.
type Aggregate[S any] struct {
	// Apply folds one stored event into the state.
	Apply func(S, eventstore.RecordedEvent) (S, error)
}

// Loaded is an aggregate's state and the stream version it reflects.
type Loaded[S any] struct {
	State   S
	Version uint64
}

const readPage = 1000

// Load folds stream into state, starting from initial.
func Load[S any](ctx context.Context, store Store, stream string, agg Aggregate[S], initial S) (Loaded[S], error) {
	out := Loaded[S]{State: initial}
	for {
		evs, err := store.ReadStream(ctx, stream, out.Version+1, readPage)
		if err != nil {
			return out, fmt.Errorf("load %s: %w", stream, err)
		}
		for _, e := range evs {
			if out.State, err = agg.Apply(out.State, e); err != nil {
				return out, fmt.Errorf("load %s at version %d: %w", stream, e.Version, err)
			}
			out.Version = e.Version
		}
		if len(evs) < readPage {
			return out, nil
		}
	}
}

// Decision is what a decide step returns: the events to append (none is fine).
type Decision = []eventstore.EventData

// maxAttempts bounds the retries after version conflicts.
const maxAttempts = 8

// Execute loads stream, calls decide with the state and appends its events with the loaded
// version as expectation, retrying on a version conflict. It returns the state decide saw last,
// and the append result (zero when decide returned no events).
func Execute[S any](ctx context.Context, store Store, stream string, agg Aggregate[S], initial S,
	decide func(Loaded[S]) (Decision, error)) (Loaded[S], eventstore.AppendResult, error) {
	for attempt := 1; ; attempt++ {
		loaded, err := Load(ctx, store, stream, agg, initial)
		if err != nil {
			return loaded, eventstore.AppendResult{}, err
		}
		events, err := decide(loaded)
		if err != nil || len(events) == 0 {
			return loaded, eventstore.AppendResult{Version: loaded.Version}, err
		}
		res, err := store.Append(ctx, stream, eventstore.Exact(loaded.Version), events...)
		if errors.Is(err, eventstore.ErrWrongExpectedVersion) && attempt < maxAttempts {
			continue
		}
		return loaded, res, err
	}
}

// newEventID is a version 7 (time-ordered) UUID: new events' ids then land at the right edge of
// the event-id index instead of on random pages.
func newEventID() uuid.UUID {
	id, err := uuid.NewV7()
	if err != nil { // only when the system's randomness fails
		return uuid.New()
	}
	return id
}

// NewEvent encodes a domain event for appending.
func NewEvent(id uuid.UUID, typ string, data any, meta eventstore.Metadata) (eventstore.EventData, error) {
	b, err := json.Marshal(data)
	if err != nil {
		return eventstore.EventData{}, fmt.Errorf("encode %s: %w", typ, err)
	}
	return eventstore.EventData{ID: id, Type: typ, Data: b, Metadata: meta}, nil
}
