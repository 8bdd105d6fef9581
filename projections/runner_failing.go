package projections

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/payledger/payledger/eventstore"
)

// failQuiet is how long after its last failure a runner that is applying nothing still counts as
// failing. Its next attempt starts within a few seconds of a failure (the retry pause, the leader
// lock, the checkpoint and the first read); one that does not come means the runner recovered
// with nothing to apply (the database answered again, another instance leads), which no commit
// would otherwise tell.
const failQuiet = 15 * time.Second

// failures is a runner's record of a run of failed attempts with no batch committed between them:
// a batch that fails the same way on every retry (a stray receipts row, a stored state that no
// longer decodes, a transaction ended after 30 s idle) is retried for ever, and only this record
// lets the app's health see it (Runner.Failing).
type failures struct {
	mu       sync.Mutex
	since    time.Time // the run's first failure (zero: none)
	last     time.Time // its latest failure
	err      error     // and its error
	applying int       // batches being applied now: a failing batch may take 30 s to fail
	began    time.Time // when the one under way began
	batch    string    // and what it applies
	ended    time.Time // when the last one ended: its failure is recorded just after
	// While leading: since when the log's head has been past a position the runner has not
	// left (zero: it is at the head, or moved since the last look), that position and the head.
	behindSince      time.Time
	behindAt, headAt eventstore.Position
}

// failed records an attempt's failure at now: the first of a run (first), or one more.
func (f *failures) failed(err error, now time.Time) (first bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if first = !f.ongoing(now); first {
		f.since = now
	}
	f.last, f.err = now, err
	return first
}

// progressed records a committed batch: the run of failures, if any, is over.
func (f *failures) progressed() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.since, f.last, f.err = time.Time{}, time.Time{}, nil
}

// begin and end (at now) bracket a batch's application: a run of failures lasts while one is
// under way, and failQuiet after it ends.
func (f *failures) begin(now time.Time, batch string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.applying++; f.applying == 1 {
		f.began, f.batch = now, batch
	}
}
func (f *failures) end(now time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.applying--
	f.ended = now
}

// ongoing says whether a run of failures goes on at now; f.mu held.
func (f *failures) ongoing(now time.Time) bool {
	return !f.since.IsZero() && (f.applying > 0 || now.Sub(f.last) < failQuiet || now.Sub(f.ended) < failQuiet)
}

// reading is the run of failures going on at now: its first failure, its latest and that one's
// error. Without one, a batch under way counts from its start, its error saying so: one that
// never ends (waiting for a row or table lock that a session left idle in a transaction holds)
// stops the projector as surely as a failure, and no failure would ever tell it. Zero times and a
// nil error when there is neither.
func (f *failures) reading(now time.Time) (since, last time.Time, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case f.ongoing(now):
		return f.since, f.last, f.err
	case f.applying > 0:
		return f.began, f.began, fmt.Errorf("%s under way since %s, not committed: waiting for a lock? (pg_locks, pg_stat_activity)",
			f.batch, f.began.UTC().Format(time.RFC3339))
	case !f.behindSince.IsZero():
		return f.behindSince, f.behindSince, fmt.Errorf("at %s since %s while the log's head is %s: an older transaction left open on the database "+
			"holds the events after it back (pg_stat_activity, state 'idle in transaction'), or its reads fail", f.behindAt, f.behindSince.UTC().Format(time.RFC3339), f.headAt)
	}
	return time.Time{}, time.Time{}, nil
}

// applyCounted is applyFrom, recorded as a batch under way for the runner's failures (Failing): a
// run of failures goes on while one is. Events already applied at append time are no batch: a
// receipts runner that only skips them must not keep an old run of failures going.
func (r *Runner) applyCounted(ctx context.Context, from eventstore.Position, batch []eventstore.RecordedEvent, to eventstore.Position, queueNext func(*pgx.Batch)) error {
	r.fails.begin(time.Now(), fmt.Sprintf("a batch of %d events up to %s", len(batch), to))
	defer func() { r.fails.end(time.Now()) }()
	return r.applyFrom(ctx, from, batch, to, queueNext)
}

// looked records a look at the log's head while leading, at now: a position behind it that has
// not moved since the last look keeps its start.
func (f *failures) looked(now time.Time, pos, head eventstore.Position) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case !pos.Less(head):
		f.behindSince = time.Time{}
	case f.behindSince.IsZero() || pos != f.behindAt:
		f.behindSince, f.behindAt = now, pos
	}
	f.headAt = head
}

// behindCheck is how often a leading runner compares its position with the log's head.
const behindCheck = 5 * time.Second

// watchBehind compares the runner's position with the log's head every behindCheck while it
// leads (a source without a head is not watched): a transaction left open on the database holds
// back every event committed after it began (the log's horizon), and the projector then reads
// nothing and fails nothing, while the events wait.
func (r *Runner) watchBehind(ctx context.Context) {
	src, ok := r.src.(interface {
		Head(ctx context.Context) (eventstore.Position, error)
	})
	if !ok {
		return
	}
	defer r.fails.looked(time.Time{}, eventstore.Start, eventstore.Start) // a standby is not behind
	for eventstore.Sleep(ctx, behindCheck) {
		if head, err := src.Head(ctx); err == nil {
			r.fails.looked(time.Now(), r.Position(), head)
		}
	}
}

// Failing is the run of failures this runner is in: since its first failed attempt, the latest at
// last with err, no batch has committed; or, without one, the batch under way since it began; or
// the position the leader has not left since the log's head went past it (zero times and nil
// when there is none of these). The app's health marks a projector failing for a
// minute stuck, naming it, and logs its error; its times are on the wall clock.
func (r *Runner) Failing() (since, last time.Time, err error) {
	return r.fails.reading(time.Now())
}
