// Package projections runs projectors: checkpointed subscribers of the global event log that keep
// PostgreSQL read models. A projector's read-model writes and its checkpoint commit in one
// transaction, so every event takes effect exactly once, whatever crashes in between.
package projections

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/eventstore"
)

// skipFlush bounds how far the stored checkpoint of a Selective projector trails behind events it
// skipped.
const skipFlush = time.Second

// errCheckpointMoved means the stored checkpoint is no longer the one this runner started from:
// a rebuild reset it, or another instance took over.
var errCheckpointMoved = errors.New("checkpoint moved under the runner")

// Runner keeps one projector up to date. Several processes may run a Runner for the same
// projector; an advisory lock lets one of them apply events while the others stand by.
type Runner struct {
	pool  *pgxpool.Pool
	src   Source
	proj  Projector
	log   zerolog.Logger
	retry time.Duration

	leader atomic.Bool
	// Selective projectors only: the stored checkpoint while skipped batches move the position
	// ahead of it (under mu), and when the apply loop last wrote it.
	skipped   bool
	stored    eventstore.Position
	lastWrite time.Time
	mu        sync.Mutex
	pos       eventstore.Position
	moved     chan struct{} // closed and replaced whenever pos changes

	fails failures // the failed attempts since the last commit (Failing)
}

// NewRunner returns a runner for proj that follows src and writes through pool.
func NewRunner(pool *pgxpool.Pool, src Source, proj Projector, log zerolog.Logger) (*Runner, error) {
	if pool == nil || src == nil || proj == nil {
		return nil, errors.New("projections: runner needs a pool, a source and a projector")
	}
	return &Runner{
		pool: pool, src: src, proj: proj, retry: time.Second, moved: make(chan struct{}),
		log: log.With().Str("projector", proj.Name()).Logger(),
	}, nil
}

// Name is the projector's name.
func (r *Runner) Name() string { return r.proj.Name() }

// Leader reports whether this instance is the one applying events.
func (r *Runner) Leader() bool { return r.leader.Load() }

// Position is the global position the read models are known to reflect.
func (r *Runner) Position() eventstore.Position {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.pos
}

// written is the position of the stored checkpoint as this runner last wrote or read it: the
// position, unless a Selective projector skipped batches since.
func (r *Runner) written() eventstore.Position {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.skipped {
		return r.stored
	}
	return r.pos
}

// setPosition sets the position, backwards too (a reset, another leader's checkpoint).
func (r *Runner) setPosition(p eventstore.Position) { r.move(p, false) }

// move sets the position to p (only if p is further when forwardOnly) and wakes WaitFor.
func (r *Runner) move(p eventstore.Position, forwardOnly bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !forwardOnly {
		r.skipped = false // set from the stored checkpoint
	}
	if p == r.pos || forwardOnly && p.Less(r.pos) {
		return
	}
	r.pos = p
	close(r.moved)
	r.moved = make(chan struct{})
}

// Advanced records that a transaction in this process moved the stored checkpoint to `to` while
// applying events at append time (Receipts.AtAppend): commands waiting for it return at once, and
// the subscription's copies of those events are skipped.
func (r *Runner) Advanced(to eventstore.Position) {
	r.move(to, true)
}

// Run applies events until ctx ends, taking the leader lock when it is free and standing by
// (following the stored checkpoint) while another instance holds it. It returns ctx.Err(), or
// at once an error that every retry of the batch would meet (failsForGood): the caller must see
// that the projector stopped (the app's health marks it stuck). A failure it retries is recorded
// until a batch commits (Failing): one that fails the same way on every retry is seen too.
func (r *Runner) Run(ctx context.Context) error {
	if err := r.ensureCheckpoint(ctx); err != nil {
		r.log.Error().Err(err).Msg("projection checkpoint")
	}
	for ctx.Err() == nil {
		err := r.lead(ctx)
		first := false // the first failure since the last commit (or a quiet spell)
		if err != nil && ctx.Err() == nil && !errors.Is(err, errCheckpointMoved) {
			first = r.fails.failed(err, time.Now())
		}
		switch {
		case ctx.Err() != nil:
		case errors.Is(err, errCheckpointMoved):
			r.log.Info().Msg("checkpoint moved; resuming from the stored checkpoint")
			continue
		case errors.Is(err, errLockLost): // logged by keepLock; try the lock again after the pause
		case failsForGood(err):
			r.log.Error().Err(err).Msg("projection stopped: an event cannot be applied")
			return err
		case err != nil && first:
			r.log.Error().Err(err).Msg("projection stopped; retrying")
		case err != nil: // the same run: the app's health logs it as an error once it lasts (Failing)
			r.log.Warn().Err(err).Msg("projection stopped; retrying")
		}
		if !eventstore.Sleep(ctx, r.retry) {
			break
		}
	}
	return ctx.Err()
}

// failsForGood says whether err is a batch's failure that no retry can mend: an event its
// projector cannot decode (ErrUndecodable), or a value PostgreSQL refuses to store (SQLSTATE class
// 22, data exception: a NUL character in a jsonb text, a time out of range), except the checkpoint
// statement's own division by zero (22012: the checkpoint moved, see checkpointErr).
func failsForGood(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return strings.HasPrefix(pgErr.Code, "22") && pgErr.Code != "22012"
	}
	return errors.Is(err, ErrUndecodable)
}

// lead takes the leader lock if free and applies events while holding it; without the lock it
// follows the stored checkpoint until ctx ends or the lock may be free again.
func (r *Runner) lead(ctx context.Context) error {
	// The lock lives on its own connection so that it lasts as long as this call, and no
	// pooled connection is held for the lifetime of the process.
	conn, err := pgx.ConnectConfig(ctx, r.pool.Config().ConnConfig.Copy())
	if err != nil {
		return fmt.Errorf("connect for leader lock: %w", err)
	}
	defer conn.Close(context.Background())
	var got bool
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, lockKey(r.proj.Name())).Scan(&got); err != nil {
		return fmt.Errorf("leader lock: %w", err)
	}
	if !got {
		return r.follow(ctx)
	}
	r.leader.Store(true)
	defer r.leader.Store(false)
	// The lock is the session's: the server frees it only when the session ends. Its idle
	// limit ends the session of a leader that no longer pings it (its machine lost, its process
	// frozen, the network cut); a server with no such limit frees it after TCP keepalive (two
	// hours by default), and every instance's projector waits that long.
	if _, err := conn.Exec(ctx, `SELECT set_config('idle_session_timeout', $1, false)`, leaderIdleLimit.String()); err != nil {
		r.log.Warn().Err(err).Msg("leader lock: no idle limit on its session; a leader that vanishes holds it until TCP keepalive")
	}
	if err := r.ensureCheckpoint(ctx); err != nil {
		return fmt.Errorf("create checkpoint: %w", err)
	}
	from, err := r.loadCheckpoint(ctx)
	if err != nil {
		return err
	}
	r.setPosition(from)
	r.log.Info().Stringer("from", from).Msg("projector leading")
	subCtx, cancel := context.WithCancelCause(ctx)
	pinged, behind := make(chan struct{}), make(chan struct{})
	defer func() { cancel(nil); <-pinged; <-behind }() // the pings end before the deferred Close of conn
	go r.watchReset(subCtx, cancel)
	go func() { defer close(behind); r.watchBehind(subCtx) }()
	go func() { defer close(pinged); r.keepLock(subCtx, conn, cancel) }()
	err = r.subscribe(subCtx, from)
	if cause := context.Cause(subCtx); ctx.Err() == nil && (errors.Is(cause, errCheckpointMoved) || errors.Is(cause, errLockLost)) {
		return cause
	}
	return err
}

// Leader lock upkeep: the leader pings its lock's session every leaderPing, each ping given
// leaderPing to answer; the server ends the session after leaderIdleLimit without one.
const (
	leaderPing      = 5 * time.Second
	leaderIdleLimit = 30 * time.Second
)

// applyIdleLimit bounds how long a projector's transaction may wait on its instance: one whose
// instance was lost mid-batch (its machine, a partition) holds the checkpoint row and the rows
// it wrote, and the leader that takes over blocks on them, until the server ends the session;
// without a limit that is TCP keepalive's two hours. A batch never waits on its instance that
// long: its reads and writes are sent back to back.
const applyIdleLimit = `SET LOCAL idle_in_transaction_session_timeout = '30s'`

// errLockLost means the leader lock's session did not answer: the server may have ended it
// (its idle limit) and another instance may lead.
var errLockLost = errors.New("leader lock's session does not answer")

// keepLock pings the lock's session until ctx ends; when a ping fails it stops the leader's
// subscription (stop(errLockLost)), so that an instance cut off from the database, or frozen
// past the session's idle limit, stands down instead of leading beside the one that took the lock.
func (r *Runner) keepLock(ctx context.Context, conn *pgx.Conn, stop context.CancelCauseFunc) {
	for eventstore.Sleep(ctx, leaderPing) {
		pctx, cancel := context.WithTimeout(ctx, leaderPing)
		_, err := conn.Exec(pctx, "SELECT 1")
		cancel()
		if err != nil && ctx.Err() == nil {
			r.log.Warn().Err(err).Msg("leader lock lost; standing by")
			stop(errLockLost)
			return
		}
	}
}

// subscribe applies the source's events after from until ctx ends, through the most direct
// subscription the source and projector both support: a filtered one (only the events that pass
// the projector's filter are read), one that reads ahead in the commit's round trip (a pipelined
// projector), or the plain one.
func (r *Runner) subscribe(ctx context.Context, from eventstore.Position) error {
	_, pipelined := r.proj.(PipelinedProjector)
	fp, filtered := r.proj.(Filtered)
	if fs, ok := r.src.(FilteredSource); ok && filtered && !pipelined {
		prefixes, types := fp.Filter()
		var every time.Duration
		if paced, ok := r.proj.(Paced); ok {
			every = paced.ReadInterval()
		}
		var applying sync.Mutex // the subscription's batches and the idle flush take turns
		// The flush ends before subscribe returns: a leader subscribes again after a reset, and a
		// flush of the old subscription still running would touch the runner's write state
		// (lastWrite) beside the new subscription's batches, under another mutex.
		fctx, cancel := context.WithCancel(ctx)
		flushed := make(chan struct{})
		go func() {
			defer close(flushed)
			r.flushIdleSkips(fctx, &applying)
		}()
		defer func() { cancel(); <-flushed }()
		return fs.SubscribeFiltered(ctx, from, prefixes, types, every, func(ctx context.Context, batch []eventstore.RecordedEvent, upTo eventstore.Position) error {
			applying.Lock()
			defer applying.Unlock()
			return r.applyTo(ctx, batch, upTo, nil)
		})
	}
	if ras, ok := r.src.(ReadAheadSource); ok && pipelined {
		return ras.SubscribeReadAhead(ctx, from, r.Position, r.apply)
	}
	return r.src.Subscribe(ctx, from, func(ctx context.Context, batch []eventstore.RecordedEvent) error {
		return r.apply(ctx, batch, nil)
	})
}

// follow refreshes the position from the stored checkpoint for a while, then returns so that
// the caller tries the lock again.
func (r *Runner) follow(ctx context.Context) error {
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) {
		p, err := r.loadCheckpoint(ctx)
		if err != nil {
			return err
		}
		r.setPosition(p)
		if !eventstore.Sleep(ctx, 50*time.Millisecond) {
			return ctx.Err()
		}
	}
	return nil
}

// applyPipelined applies a batch in two round trips on one connection: BEGIN with the reads,
// then the writes, the checkpoint and COMMIT. queueNext, when not nil, queues the subscription's
// next read after the COMMIT, in the same round trip.
func (r *Runner) applyPipelined(ctx context.Context, pp PipelinedProjector, from eventstore.Position, batch []eventstore.RecordedEvent, queueNext func(*pgx.Batch)) error {
	to := batch[len(batch)-1].Position
	conn, err := r.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("acquire: %w", err)
	}
	defer conn.Release()
	committed := false
	defer func() {
		if committed {
			return
		}
		rctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if _, err := conn.Exec(rctx, "ROLLBACK"); err != nil {
			_ = conn.Conn().Close(rctx) // unknown transaction state: the pool must not reuse it
		}
	}()
	reads := &pgx.Batch{}
	reads.Queue("BEGIN")
	reads.Queue(applyIdleLimit)
	queueWrites := pp.QueueApply(batch, reads)
	writes := &pgx.Batch{}
	if reads.Len() > 2 {
		if err := conn.SendBatch(ctx, reads).Close(); err != nil {
			return fmt.Errorf("apply %d events up to %s: read: %w", len(batch), to, err)
		}
	} else { // nothing to read: the whole batch is one round trip
		writes.Queue("BEGIN")
		writes.Queue(applyIdleLimit)
	}
	if err := queueWrites(writes); err != nil {
		return fmt.Errorf("apply %d events up to %s: %w", len(batch), to, err)
	}
	r.queueCheckpoint(writes, from, to)
	writes.Queue("COMMIT").Exec(func(ct pgconn.CommandTag) error { committed = ct.String() == "COMMIT"; return nil })
	if queueNext != nil {
		queueNext(writes)
	}
	err = conn.SendBatch(ctx, writes).Close()
	if committed {
		// Only the read after the COMMIT can have failed: the subscription reads again itself.
		return nil
	}
	if err := checkpointErr(err); err != nil {
		return fmt.Errorf("apply %d events up to %s: %w", len(batch), to, err)
	}
	return errors.New("apply: COMMIT did not run") // unreachable: an error skips it, and was returned
}

// apply applies a batch and its checkpoint in one transaction. queueNext, when not nil, queues
// the subscription's next read into the batch's last round trip (pipelined projectors only).
//
// Events at or before the checkpoint were applied when they were appended (Receipts.AtAppend)
// and are skipped. Such an append may also move the checkpoint before this runner hears of it,
// and the batch then fails (on the moved checkpoint, or earlier on a row that the append
// inserted): when the stored checkpoint turns out to have moved forward, the batch is applied
// again from there.
func (r *Runner) apply(ctx context.Context, batch []eventstore.RecordedEvent, queueNext func(*pgx.Batch)) error {
	return r.applyTo(ctx, batch, batch[len(batch)-1].Position, queueNext)
}

// applyTo is apply for a batch that the read model reflects up to `to`, at or after its last
// event: a filtered read's events, with the position the read covered (the batch may then be
// empty, for a Selective projector only).
func (r *Runner) applyTo(ctx context.Context, batch []eventstore.RecordedEvent, to eventstore.Position, queueNext func(*pgx.Batch)) error {
	for {
		from := r.Position()
		batch = after(batch, from)
		if !from.Less(to) {
			return nil
		}
		err := r.applyCounted(ctx, from, batch, to, queueNext)
		if err == nil {
			return nil
		}
		stored, lerr := r.loadCheckpoint(ctx)
		if lerr != nil || !from.Less(stored) {
			return err // moved back (a rebuild) or unknown: the caller starts over from the stored one
		}
		r.Advanced(stored)
	}
}

// after is the events of batch beyond pos.
func after(batch []eventstore.RecordedEvent, pos eventstore.Position) []eventstore.RecordedEvent {
	for len(batch) > 0 && !pos.Less(batch[0].Position) {
		batch = batch[1:]
	}
	return batch
}

// applyFrom applies a batch whose first event is after from, the checkpoint it expects, and
// moves the checkpoint to `to` (the batch's last event, or further for a filtered read).
func (r *Runner) applyFrom(ctx context.Context, from eventstore.Position, batch []eventstore.RecordedEvent, to eventstore.Position, queueNext func(*pgx.Batch)) error {
	if sel, ok := r.proj.(Selective); ok {
		if !slices.ContainsFunc(batch, sel.Relevant) && time.Since(r.lastWrite) < skipFlush {
			r.mu.Lock()
			if !r.skipped {
				r.stored, r.skipped = from, true // every move so far was a write
			}
			r.mu.Unlock()
			r.Advanced(to) // nothing to apply: the read models reflect it
			return nil
		}
		// The stored checkpoint is still where the last write left it: that is what the write
		// expects, and it moves past the skipped events too.
		from = r.written()
		r.lastWrite = time.Now()
	}
	if pp, ok := r.proj.(PipelinedProjector); ok && len(batch) > 0 {
		if err := r.applyPipelined(ctx, pp, from, batch, queueNext); err != nil {
			return err
		}
		r.committed(batch[len(batch)-1].Position)
		return nil
	}
	apply, err := r.prepare(ctx, batch)
	if err != nil {
		return fmt.Errorf("apply %d events up to %s: %w", len(batch), to, err)
	}
	tx, err := r.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer func() { _ = tx.Rollback(context.Background()) }()
	if _, err := tx.Exec(ctx, applyIdleLimit); err != nil {
		return fmt.Errorf("apply %d events up to %s: %w", len(batch), to, err)
	}
	if len(batch) > 0 {
		if err := apply(ctx, tx); err != nil {
			return fmt.Errorf("apply %d events up to %s: %w", len(batch), to, err)
		}
	}
	writes := &pgx.Batch{}
	r.queueCheckpoint(writes, from, to)
	if err := checkpointErr(tx.SendBatch(ctx, writes).Close()); err != nil {
		return fmt.Errorf("apply %d events up to %s: %w", len(batch), to, err)
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	r.committed(to)
	return nil
}

func (r *Runner) committed(to eventstore.Position) {
	r.mu.Lock()
	r.skipped = false // the checkpoint is written
	r.mu.Unlock()
	r.Advanced(to) // forward only: an append may have moved the checkpoint past it meanwhile
	r.fails.progressed()
	if c, ok := r.proj.(interface{ Committed() }); ok {
		c.Committed()
	}
}

// WaitFor blocks until the read models reflect pos (read-your-writes) or ctx ends.
func (r *Runner) WaitFor(ctx context.Context, pos eventstore.Position) error {
	for {
		r.mu.Lock()
		cur, moved := r.pos, r.moved
		r.mu.Unlock()
		if !cur.Less(pos) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for %s at %s: %w", r.proj.Name(), pos, ctx.Err())
		case <-moved:
		case <-time.After(10 * time.Millisecond):
			if !r.Leader() { // another process applies; its progress is in the table
				if p, err := r.loadCheckpoint(ctx); err == nil && cur.Less(p) {
					r.setPosition(p)
				}
			}
		}
	}
}

func lockKey(name string) int64 {
	h := fnv.New64a()
	h.Write([]byte("payledger-projection:" + name))
	return int64(h.Sum64())
}
