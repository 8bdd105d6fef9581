package journal

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/rs/zerolog"
)

// EntryStore stores one entry: its side data and its events under their original ids, each step
// a no-op when already done. The service's is commands.JournalReplay, which appends through the
// commands' pipeline as every other writer does (this package cannot import commands, which
// journals).
type EntryStore interface {
	StoreEntry(ctx context.Context, e Entry) error
}

// Backoff of an entry that fails while the store answers: doubling from the first delay up to
// the last.
const (
	firstRetry = 2 * time.Second
	lastRetry  = 5 * time.Minute
	entryLimit = 10 * time.Second // one entry's replay; a store that hangs counts as down
)

// errBackingOff keeps an entry whose next retry is not due yet.
var errBackingOff = errors.New("backing off")

// Replayer puts journaled entries into the event store once it answers, by its EntryStore: the
// sealed webhook key first, then the events under their original ids. Both steps are idempotent, so an entry whose
// events were stored by an earlier, partly failed replay (or by the very append whose answer
// was lost and sent the order to the journal) is completed and counts as done.
//
// An entry that fails while the store answers is kept, logged, counted and retried with backoff,
// and the entries behind it go on; a failure that Transient reports (the store is down) ends the
// pass and keeps the rest for the next one.
type Replayer struct {
	journal   *Journal
	entries   EntryStore
	transient func(error) bool
	log       zerolog.Logger
	now       func() time.Time

	mu       sync.Mutex
	retries  map[uuid.UUID]retry // by the entry's first event id
	failures atomic.Uint64
	pending  atomic.Int64
}

type retry struct {
	failures int
	next     time.Time
}

// NewReplayer returns a replayer of j by entries; transient tells store-down errors (nil: none
// is). It panics on a nil journal or entry store: a wiring mistake.
func NewReplayer(j *Journal, entries EntryStore, transient func(error) bool, log zerolog.Logger) *Replayer {
	if j == nil || entries == nil {
		panic("journal.NewReplayer: nil dependency")
	}
	if transient == nil {
		transient = func(error) bool { return false }
	}
	return &Replayer{journal: j, entries: entries, transient: transient, log: log, now: time.Now, retries: map[uuid.UUID]retry{}}
}

// Stats are the replay's figures for /metrics.
type Stats struct {
	Pending  int64  // entries in the journal after the last pass
	Failing  int64  // entries backing off after a failure
	Failures uint64 // failed replays of an entry, ever
}

// Stats reports the replay's figures.
func (r *Replayer) Stats() Stats {
	r.mu.Lock()
	failing := int64(len(r.retries))
	r.mu.Unlock()
	return Stats{Pending: r.pending.Load(), Failing: failing, Failures: r.failures.Load()}
}

// DrainOnce replays every entry that is due; it reports how many went in. A store that is down
// ends the pass: the entries behind are kept without being read.
func (r *Replayer) DrainOnce(ctx context.Context) (int, error) {
	n, err := r.journal.Drain(ctx, func(ctx context.Context, e Entry) error {
		err := r.apply(ctx, e)
		if err != nil && (r.transient(err) || ctx.Err() != nil) {
			// A pass whose context ended (serve stopping) ends as one whose store is down: every
			// entry left was failed in turn on the ended context, counted and logged as failing.
			return fmt.Errorf("%w: %w", ErrStoreDown, err)
		}
		return err
	})
	if n > 0 {
		r.log.Info().Int("entries", n).Msg("journal replayed into the event store")
	}
	r.pending.Store(int64(r.journal.Len()))
	return n, err
}

// Run replays the journal every interval until ctx ends.
func (r *Replayer) Run(ctx context.Context, interval time.Duration) error {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
			r.pass(ctx)
		}
	}
}

// pass is one of Run's passes. Its failure is logged unless it is only an entry backing off:
// that entry's failures are logged at error level as they happen, and the pass after each one
// (every interval, 2 s, until its retry is due, up to 5 min; for ever for an entry that cannot be
// stored) logged it again.
func (r *Replayer) pass(ctx context.Context) {
	if _, err := r.DrainOnce(ctx); err != nil && ctx.Err() == nil && !errors.Is(err, errBackingOff) {
		r.log.Warn().Err(err).Msg("journal replay: will retry")
	}
}

// apply replays one entry unless it is backing off.
func (r *Replayer) apply(ctx context.Context, e Entry) error {
	if len(e.Events) == 0 {
		return nil
	}
	id := e.Events[0].ID
	r.mu.Lock()
	rt, failed := r.retries[id]
	r.mu.Unlock()
	if failed && r.now().Before(rt.next) {
		return errBackingOff
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	entryCtx, cancel := context.WithTimeout(ctx, entryLimit)
	defer cancel()
	err := r.entries.StoreEntry(entryCtx, e)
	switch {
	case err == nil:
		if failed {
			r.mu.Lock()
			delete(r.retries, id)
			r.mu.Unlock()
			r.log.Info().Str("stream", e.Stream).Int("failures", rt.failures).Msg("journal entry stored after failing")
		}
	case r.transient(err) || ctx.Err() != nil: // the store is down, or the pass was stopped
	default:
		r.failed(e, id, err)
	}
	return err
}

// failed schedules an entry's next try and reports the failure.
func (r *Replayer) failed(e Entry, id uuid.UUID, err error) {
	r.failures.Add(1)
	r.mu.Lock()
	rt := r.retries[id]
	rt.failures++
	delay := firstRetry << min(rt.failures-1, 20)
	if delay > lastRetry || delay <= 0 {
		delay = lastRetry
	}
	rt.next = r.now().Add(delay)
	r.retries[id] = rt
	r.mu.Unlock()
	r.log.Error().Err(err).Str("stream", e.Stream).Int("failures", rt.failures).Dur("retry_in", delay).
		Msg("journal entry could not be stored; the entries behind it go on")
}
