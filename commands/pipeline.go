// Package commands holds the command handlers of the write side. Every command goes through one
// pipeline: load the aggregate from its stream, decide, append with the expected version, and
// retry from a fresh load when another writer got there first.
package commands

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/google/uuid"

	"github.com/payledger/payledger/eventstore"
)

// The event store's vocabulary as the callers of commands see it: transport speaks to commands
// and read models only, never to the event store.
type (
	// Metadata is the envelope of the events a command appends (correlation id, actor, source).
	Metadata = eventstore.Metadata
	// AppendResult is where a command's last event landed: the version and the global position
	// that read-your-writes waits for.
	AppendResult = eventstore.AppendResult
	// Position is a place in the global event log.
	Position = eventstore.Position
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
	// Fold, when set, starts a fold of many events from a state, for an aggregate whose states
	// Apply must copy on each change (a receipt's credits: Apply, event by event, folds n credits
	// in time n², receipt.Folder in time n). Its state must be Apply's, event for event; the state
	// it starts from is never changed. Unset: Apply event by event.
	Fold func(S) Folding[S]
}

// Folding is a fold in progress (Aggregate.Fold).
type Folding[S any] interface {
	// Apply folds one stored event into the state.
	Apply(eventstore.RecordedEvent) error
	// State is the state folded so far; it is the caller's (later events do not change it).
	State() S
}

// folding starts agg's fold at s: its own Fold, else Apply event by event.
func (agg Aggregate[S]) folding(s S) Folding[S] {
	if agg.Fold != nil {
		return agg.Fold(s)
	}
	return &applying[S]{apply: agg.Apply, s: s}
}

// applying is the fold of an aggregate without Fold: Apply event by event.
type applying[S any] struct {
	apply func(S, eventstore.RecordedEvent) (S, error)
	s     S
}

func (a *applying[S]) Apply(e eventstore.RecordedEvent) (err error) {
	a.s, err = a.apply(a.s, e)
	return err
}

func (a *applying[S]) State() S { return a.s }

// Loaded is an aggregate's state and the stream version it reflects.
type Loaded[S any] struct {
	State   S
	Version uint64
}

const readPage = 1000

// Load folds stream into state, starting from initial.
func Load[S any](ctx context.Context, store Store, stream string, agg Aggregate[S], initial S) (Loaded[S], error) {
	return loadOn(ctx, store, stream, agg, Loaded[S]{State: initial})
}

// loadOn folds the events of stream after out.Version into out.State: a stream is only ever
// appended to, so a state loaded earlier is brought up to date by what came after it. The
// aggregates' states are values whose maps and slices are copied on change (receipt.withEntry,
// and receipt.Folder copies the credits of the state it starts from before its first change to
// them), so a decision made on out meanwhile changed nothing in it, and the fold changes nothing
// in the state that decision saw. On an error, out is the state at the last event folded.
func loadOn[S any](ctx context.Context, store Store, stream string, agg Aggregate[S], out Loaded[S]) (Loaded[S], error) {
	f := agg.folding(out.State)
	for {
		evs, err := store.ReadStream(ctx, stream, out.Version+1, readPage)
		if err != nil {
			out.State = f.State()
			return out, fmt.Errorf("load %s: %w", stream, err)
		}
		if err := foldInto(f, &out.Version, evs); err != nil {
			out.State = f.State()
			return out, fmt.Errorf("load %s %w", stream, err)
		}
		if len(evs) < readPage {
			out.State = f.State()
			return out, nil
		}
	}
}

// foldInto folds evs into f, setting version to each event's as it goes. Errors: the fold's,
// with the version it failed at.
func foldInto[S any](f Folding[S], version *uint64, evs []eventstore.RecordedEvent) error {
	for _, e := range evs {
		if err := f.Apply(e); err != nil {
			return fmt.Errorf("at version %d: %w", e.Version, err)
		}
		*version = e.Version
	}
	return nil
}

// Decision is what a decide step returns: the events to append (none is fine).
type Decision = []eventstore.EventData

// A version conflict is retried on the stream as it is now until it goes through: under
// contention (20 refunds of one receipt at once, two processes) every writer gets its turn. A
// retry reads only the events appended since the version it decided on (loadOn), not the whole
// stream again: a receipt with many refunds costs its conflicting writers what the winner
// appended, not its history once per try. The pause between tries grows with jitter so the
// writers spread out; only a stream that stays contended for conflictBudget, and through at
// least leastTries conflicting tries, gives up, with ErrContended. The floor of tries is for a
// loaded machine: when one try takes seconds (a queued append, a starved process), the budget
// ran out after a single conflict with the other writer of a pair, which then had its turn, and
// a processor's event was refused 409 where its second try would have gone through (CI, stop 74).
const (
	conflictBudget = 10 * time.Second
	leastTries     = 16
	firstPause     = time.Millisecond
	longestPause   = 50 * time.Millisecond
)

// ErrContended is returned when a stream's version kept moving under a command for longer than
// the conflict budget; the command changed nothing and may be sent again.
var ErrContended = errors.New("the aggregate is being changed by other requests; retry")

// Execute loads stream, calls decide with the state and appends its events with the loaded
// version as expectation, retrying on the events appended since (loadOn) with a fresh decision
// on a version conflict.
// It returns the state decide saw last, and the append result (zero when decide returned no
// events). Errors: decide's, ErrContended, wrapped store errors.
func Execute[S any](ctx context.Context, store Store, stream string, agg Aggregate[S], initial S,
	decide func(Loaded[S]) (Decision, error)) (Loaded[S], eventstore.AppendResult, error) {
	return execute(ctx, store, stream, agg, initial, decide, route{})
}

// executeOn is Execute on a stream the caller loaded already (loaded, by Load): the first try
// reads only what was appended since, so a command that loaded the stream for a check before
// deciding (a refund's owner and claim checks) does not read it whole twice. Errors: Execute's.
func executeOn[S any](ctx context.Context, store Store, stream string, agg Aggregate[S], loaded Loaded[S],
	decide func(Loaded[S]) (Decision, error)) (Loaded[S], eventstore.AppendResult, error) {
	return executeFrom(ctx, store, stream, agg, loaded, decide, route{})
}

// route is how a command's decided events go through the pipeline where Execute's defaults do not
// fit: a receipt's generation (appendGeneration).
type route struct {
	// fresh says the stream is new by construction (a receipt under a new id): the first try
	// decides on the initial state without reading the stream, and a conflict (it was not new
	// after all) reloads at once, without the pause that spreads contending writers.
	fresh bool
	// append replaces store.Append for the decided events: it takes the append's expected version
	// and brings what must commit with them (companions, the decided value; appendGeneration).
	append func(ctx context.Context, expected eventstore.ExpectedVersion, events Decision) (eventstore.AppendResult, error)
	// now is the conflict budget's clock (time.Now when nil; a test's own clock).
	now func() time.Time
}

// execute is Execute along r.
func execute[S any](ctx context.Context, store Store, stream string, agg Aggregate[S], initial S,
	decide func(Loaded[S]) (Decision, error), r route) (Loaded[S], eventstore.AppendResult, error) {
	return executeFrom(ctx, store, stream, agg, Loaded[S]{State: initial}, decide, r)
}

// executeFrom is Execute along r from start: each try folds what was appended after the state
// it has (loadOn) and decides on it; a conflict means another writer appended, and the next try
// reads just that.
func executeFrom[S any](ctx context.Context, store Store, stream string, agg Aggregate[S], start Loaded[S],
	decide func(Loaded[S]) (Decision, error), r route) (Loaded[S], eventstore.AppendResult, error) {
	now := r.now
	if now == nil {
		now = time.Now
	}
	deadline := now().Add(conflictBudget)
	pause := firstPause
	loaded := start
	for try := 0; ; try++ {
		blind := r.fresh && try == 0
		if !blind {
			var err error
			if loaded, err = loadOn(ctx, store, stream, agg, loaded); err != nil {
				return loaded, eventstore.AppendResult{}, err
			}
		}
		res, err := decideAppend(ctx, store, stream, loaded, decide, r.append)
		switch {
		case !errors.Is(err, eventstore.ErrWrongExpectedVersion):
			return loaded, res, err
		case blind:
			continue // the stream was not new after all: decide again on what it holds
		case try+1 >= leastTries && now().After(deadline):
			return loaded, res, fmt.Errorf("%s: %w (%v)", stream, ErrContended, err)
		}
		if err := sleep(ctx, pause/2+rand.N(pause)); err != nil {
			return loaded, res, err
		}
		pause = min(2*pause, longestPause)
	}
}

// ExecuteRead is Execute's first try on a stream whose events the caller already read (many
// streams read in one query, as the wallet verifier does for a block's verdicts): it folds evs,
// decides and appends with their last version as expectation. It does not retry: a caller that
// gets eventstore.ErrWrongExpectedVersion (another writer got there first) goes through Execute,
// which reloads. Errors: the fold's, decide's, eventstore.ErrWrongExpectedVersion, wrapped store
// errors.
func ExecuteRead[S any](ctx context.Context, store Store, stream string, agg Aggregate[S], initial S,
	evs []eventstore.RecordedEvent, decide func(Loaded[S]) (Decision, error)) (Loaded[S], eventstore.AppendResult, error) {
	loaded := Loaded[S]{}
	f := agg.folding(initial)
	err := foldInto(f, &loaded.Version, evs)
	if loaded.State = f.State(); err != nil {
		return loaded, eventstore.AppendResult{}, fmt.Errorf("fold %s %w", stream, err)
	}
	res, err := decideAppend(ctx, store, stream, loaded, decide, nil)
	return loaded, res, err
}

// decideAppend is one try of the pipeline on loaded: decide, then append with loaded's version
// as expectation, by appendTo when set, else store.Append (nothing to append: the loaded version
// as result).
func decideAppend[S any](ctx context.Context, store Store, stream string, loaded Loaded[S],
	decide func(Loaded[S]) (Decision, error),
	appendTo func(context.Context, eventstore.ExpectedVersion, Decision) (eventstore.AppendResult, error)) (eventstore.AppendResult, error) {
	events, err := decide(loaded)
	if err != nil || len(events) == 0 {
		return eventstore.AppendResult{Version: loaded.Version}, err
	}
	if appendTo != nil {
		return appendTo(ctx, eventstore.Exact(loaded.Version), events)
	}
	return store.Append(ctx, stream, eventstore.Exact(loaded.Version), events...)
}

func sleep(ctx context.Context, d time.Duration) error {
	if !eventstore.Sleep(ctx, d) {
		return ctx.Err()
	}
	return nil
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
	return eventstore.EventData{ID: id, Type: typ, Data: b, Metadata: meta, Marshaled: true}, nil
}
