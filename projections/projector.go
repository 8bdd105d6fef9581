package projections

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/payledger/payledger/eventstore"
)

// What a runner runs (a projector, and what it may also be: pipelined, selective, filtered) and
// what it follows (a source, and what it may also offer). runner.go picks the most direct way a
// source and a projector both support.

// Projector turns events into read-model changes.
type Projector interface {
	// Name identifies the projector's checkpoint and leader lock.
	Name() string
	// Apply writes the effect of events inside tx; the runner commits it with the checkpoint.
	Apply(ctx context.Context, tx pgx.Tx, events []eventstore.RecordedEvent) error
	// Reset empties the projector's read models inside tx, before a rebuild.
	Reset(ctx context.Context, tx pgx.Tx) error
}

// ErrUndecodable marks a projector's failure on an event it cannot decode: data that does not fit
// its type, or a type this build does not know (written by a newer one). Applying the batch again
// cannot succeed, so the runner stops on it (Run returns it: the worker is stuck on /healthz)
// instead of retrying it every second while nothing reports it.
var ErrUndecodable = errors.New("event does not decode")

// undecodable is ErrUndecodable for event e and its decoding error err.
func undecodable(e eventstore.RecordedEvent, err error) error {
	return fmt.Errorf("%w: %s version %d (%s) at %s: %w", ErrUndecodable, e.StreamID, e.Version, e.Type, e.Position, err)
}

// PipelinedProjector is a Projector whose batch takes two round trips: its reads go out with the
// transaction's BEGIN, and its writes with the checkpoint and the COMMIT (one round trip when it
// needs no reads). The projector is the
// one serial stage every command waits on (read-your-writes), so its round trips count twice.
type PipelinedProjector interface {
	Projector
	// QueueApply queues the reads that events need and returns the function that, once they have
	// run, queues the effect of events into writes.
	QueueApply(events []eventstore.RecordedEvent, reads *pgx.Batch) func(writes *pgx.Batch) error
}

// Selective is a Projector that only some events concern. A batch that holds none of them
// changes no read model, so the runner does not open a transaction for it; it moves the stored
// checkpoint past such batches at most once per skipFlush (a restart reads them again and skips
// them again: exactly-once is untouched, as they have no effect).
type Selective interface {
	Projector
	Relevant(e eventstore.RecordedEvent) bool
}

// Filtered is a Selective projector whose events the source can pick out itself (in SQL), so
// that the events it ignores are never read: the stream-id prefixes and, when not empty, the
// types of the events it may act on. Every event Relevant accepts must pass the filter; the
// filter may pass more (Apply still checks Relevant).
type Filtered interface {
	Selective
	Filter() (streamPrefixes, types []string)
}

// Paced is a Filtered projector that reads the log at most once per ReadInterval while appends
// keep coming (the first after a quiet spell is read at once, so a command that waits for it at
// rest waits no longer). Under load every append wakes a filtered subscription; for a projector that
// writes on nearly every batch (receipt.created: one entry per order), each read then costs a
// transaction, a checkpoint move and the wake-ups of its readers for a handful of events. Reading
// less often makes the batches larger and that cost a small share of each event's.
type Paced interface {
	Filtered
	ReadInterval() time.Duration
}

// PacedInterval is the read interval of the paced projectors (receipt.created, users, subscriptions). At the
// filtered default of 10 ms, the receipt.created projector's per-batch work (a transaction, a
// checkpoint move, the dispatcher's wake-ups) cost more than its entries: issue 35's same-run order
// benchmark was 5-19% slower with it, and is not with this.
const PacedInterval = 100 * time.Millisecond

// FilteredSource is a Source that can hand a subscriber only the events that pass a filter
// (postgres.Store.SubscribeFiltered), with the position each read covered: the subscriber's
// checkpoint moves over filtered-out events as over skipped ones. Reads are at least every apart
// (0: the source's own least interval).
type FilteredSource interface {
	SubscribeFiltered(ctx context.Context, from eventstore.Position, prefixes, types []string, every time.Duration,
		handle func(ctx context.Context, batch []eventstore.RecordedEvent, upTo eventstore.Position) error) error
}

// Source is the part of the event store that a runner follows.
type Source interface {
	Subscribe(ctx context.Context, from eventstore.Position, handle func(context.Context, []eventstore.RecordedEvent) error) error
}

// ReadAheadSource is a Source on the read models' own database whose handler can send the read of
// the following events at the end of its commit's round trip (postgres.Store.SubscribeReadAhead):
// a pipelined projector that keeps up then makes one round trip per batch.
type ReadAheadSource interface {
	Source
	SubscribeReadAhead(ctx context.Context, from eventstore.Position, floor func() eventstore.Position,
		handle func(ctx context.Context, batch []eventstore.RecordedEvent, queueNext func(*pgx.Batch)) error) error
}
