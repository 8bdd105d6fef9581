package postgres

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payledger/payledger/eventstore"
)

// SubscribeBatch is the most events handed to a subscriber at once.
const SubscribeBatch = 1000

// Subscribe implements eventstore.Store. It reads forward from `from`, and when caught up waits
// for an in-process append, a NOTIFY from another process, or the poll interval.
func (s *Store) Subscribe(ctx context.Context, from eventstore.Position, handle func(context.Context, []eventstore.RecordedEvent) error) error {
	return s.subscribe(ctx, from, nil, func(ctx context.Context, batch []eventstore.RecordedEvent, _ func(*pgx.Batch)) error {
		return handle(ctx, batch)
	}, true)
}

// SubscribeReadAhead is Subscribe for a handler that makes its own round trip to this database
// for each batch (a projector committing its checkpoint): the handler queues, with queueNext, the
// read of the events after its batch at the end of its last pgx batch, and that read is the
// subscription's next one. A subscriber that keeps up then pays one round trip per batch instead
// of two. If the handler does not queue it, or the read did not run, the subscription reads itself.
//
// floor, when not nil, is a position the subscriber has got past without being handed the events
// (a projector whose events were applied in their appends' transactions): reads start after it,
// and a wake-up by this process's own appends reads nothing when every one of them is at or
// before it.
func (s *Store) SubscribeReadAhead(ctx context.Context, from eventstore.Position, floor func() eventstore.Position,
	handle func(ctx context.Context, batch []eventstore.RecordedEvent, queueNext func(*pgx.Batch)) error) error {
	return s.subscribe(ctx, from, floor, handle, false)
}

func (s *Store) subscribe(ctx context.Context, from eventstore.Position, floor func() eventstore.Position,
	handle func(context.Context, []eventstore.RecordedEvent, func(*pgx.Batch)) error, prefetch bool) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	notified := s.notifications(ctx)
	backoff := time.Duration(0)
	var next <-chan prefetched
	skip := false // woken by this process's appends: read only if one is beyond the floor
	for {
		var wake <-chan struct{}
		var batch []eventstore.RecordedEvent
		var err error
		if floor != nil {
			if f := floor(); from.Less(f) {
				from = f
			}
		}
		if next != nil { // read while (or with) the previous batch's handling
			r := <-next
			next, wake, batch, err = nil, r.wake, r.batch, r.err
		} else {
			wake = s.wake.wait() // taken before reading, so no append between read and wait is missed
			// Checked after taking the wake-up: an append that ends after this check wakes it.
			if skip && !from.Less(s.lastAppended()) {
				backoff = 0 // nothing was looked for, so nothing can be hidden by an open transaction
			} else {
				batch, err = s.ReadAll(ctx, from, SubscribeBatch)
			}
		}
		skip = false
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return err
		}
		if len(batch) > 0 {
			from = batch[len(batch)-1].Position
			if prefetch {
				// The read of the following events overlaps the handler's work: a subscriber
				// that keeps up pays one round trip less per batch.
				next = s.prefetch(ctx, from)
				err = handle(ctx, batch, func(*pgx.Batch) {})
			} else {
				ahead := &readAhead{from: from, wake: s.wake.wait()}
				err = handle(ctx, batch, ahead.queue)
				next = ahead.result()
			}
			if err != nil {
				return err
			}
			backoff = 0
			continue
		}
		var appended bool
		if appended, backoff, err = s.idleWait(ctx, wake, notified, backoff); err != nil {
			return err
		}
		skip = appended && floor != nil
	}
}

// idleWait waits after a read that found nothing, for an append of this process (wake), another
// process's notification, or the poll interval; appended says whether wake ended it. After a
// wake-up that found nothing, an older transaction may still be open and hide newer events, so
// the next wait is short (1 ms, doubling up to the poll interval) rather than a whole poll.
func (s *Store) idleWait(ctx context.Context, wake, notified <-chan struct{}, backoff time.Duration) (appended bool, next time.Duration, err error) {
	wait := s.pollInterval
	if backoff > 0 {
		wait = min(backoff, s.pollInterval)
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	woken := true
	select {
	case <-ctx.Done():
		return false, 0, ctx.Err()
	case <-wake:
		appended = true
	case <-notified:
	case <-timer.C:
		woken = false
	}
	switch {
	case woken:
		backoff = time.Millisecond
	case backoff > 0:
		backoff *= 2
		if backoff > s.pollInterval {
			backoff = 0
		}
	}
	return appended, backoff, nil
}

// logHorizon is the first transaction id that may still add events to this database's log: the
// oldest transaction in progress in the statement's snapshot that is not found running in another
// database (one that has ended since, or a prepared transaction, cannot be placed and counts), else
// the snapshot's xmax. The cluster-wide xmin used before let a transaction left open in any other
// database of the cluster (another service, another test's database) hold every projector of this
// one back, and with it read-your-writes waits and webhooks. The projections' at-append check
// (readmodels.ReceiptsAtAppendSQL) places transactions the same way.
//
// Placing a transaction means reading every backend's status (pg_stat_get_activity: about 0.9 ms
// of PostgreSQL's CPU per statement with max_connections at 400, whatever the number placed), and
// it can only move the horizon past the oldest transaction in progress. So it is done only when
// the log holds a committed event at or past that oldest one (its newest visible event, read
// backwards on the primary key; a generic plan's scan for "any event past it" read the whole
// table): otherwise the two horizons read the same events (stop 75: most projector reads under
// load, each of which paid it).
const logHorizon = `(SELECT CASE WHEN s.low IS NULL OR coalesce((SELECT max(h.tx_id) FROM events h), 0) < s.low
		THEN least(s.xmax, s.low)
		ELSE least(s.xmax, (SELECT min(x.id::text::bigint) FROM pg_snapshot_xip(s.snap) AS x(id) WHERE NOT EXISTS (
			SELECT 1 FROM pg_stat_get_activity(NULL) a WHERE a.backend_xid = xid(x.id)
				AND a.datid IS DISTINCT FROM (SELECT oid FROM pg_database WHERE datname = current_database()))))
		END
	FROM (SELECT snap, pg_snapshot_xmax(snap)::text::bigint AS xmax,
		(SELECT min(x.id::text::bigint) FROM pg_snapshot_xip(snap) AS x(id)) AS low
		FROM (SELECT pg_current_snapshot() AS snap) s0) s)`

// readAllSQL reads the log after ($1, $2), never past a transaction of this database still
// running (see the events table's comment, and logHorizon).
//
// The parameters are read through a sub-select so that the planner's estimates never see their
// values: the cached prepared statement's generic plan (the primary key's index scan) then costs
// what a custom plan does and PostgreSQL keeps it, instead of planning every read again (a custom
// plan for a position near the log's end always looked cheaper). That planning was about 40% of
// the backend's time for a read of a few events.
const readAllSQL = `SELECT ` + selectColumns + ` FROM events
		WHERE (tx_id, seq) > (SELECT $1::bigint, $2::bigint) AND tx_id < ` + logHorizon + `
		ORDER BY tx_id, seq LIMIT (SELECT $3::int)`

// readAhead is the read of the events after a batch, queued by its handler into its own pgx
// batch; the wake-up channel is taken before the handler runs, so before the read.
type readAhead struct {
	from  eventstore.Position
	wake  <-chan struct{}
	ran   bool
	batch []eventstore.RecordedEvent
	err   error
}

func (a *readAhead) queue(b *pgx.Batch) {
	b.Queue(readAllSQL, int64(a.from.Commit), int64(a.from.Prepare), SubscribeBatch).Query(func(rows pgx.Rows) error {
		a.ran = true
		a.batch, a.err = scanEvents(rows, SubscribeBatch)
		return nil // a failed read is the subscription's error, not the handler's
	})
}

// result is the read as the subscription's next one, or nil when it did not run.
func (a *readAhead) result() <-chan prefetched {
	if !a.ran {
		return nil
	}
	out := make(chan prefetched, 1)
	out <- prefetched{wake: a.wake, batch: a.batch, err: a.err}
	return out
}

// prefetched is a read made ahead, with the wake-up channel taken before it.
type prefetched struct {
	wake  <-chan struct{}
	batch []eventstore.RecordedEvent
	err   error
}

// prefetch reads the events after from in the background.
func (s *Store) prefetch(ctx context.Context, from eventstore.Position) <-chan prefetched {
	out := make(chan prefetched, 1)
	wake := s.wake.wait()
	go func() {
		batch, err := s.ReadAll(ctx, from, SubscribeBatch)
		out <- prefetched{wake: wake, batch: batch, err: err}
	}()
	return out
}

// FilteredReadInterval is the least time between two reads of a filtered subscription: under
// load every append wakes it, and a subscriber that only a few events concern (a Selective
// projector nobody waits on) gains nothing from reading after each one.
const FilteredReadInterval = 10 * time.Millisecond

// SubscribeFiltered is Subscribe for a subscriber that only some events concern: only events
// whose stream id starts with one of prefixes and, when types is not empty, whose type is one of
// types are read and handed over (PostgreSQL skips the others: their data never leaves it).
// handle also receives upTo, the position the read covered: every event up to it was either
// handed over or filtered out, in the log's gap-free order (the same snapshot horizon as
// ReadAll), so a subscriber may move its checkpoint there even when batch is empty. Reads are at
// least every apart, and at least FilteredReadInterval (every <= 0: that interval), except
// while catching up.
func (s *Store) SubscribeFiltered(ctx context.Context, from eventstore.Position, prefixes, types []string, every time.Duration,
	handle func(ctx context.Context, batch []eventstore.RecordedEvent, upTo eventstore.Position) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	notified := s.notifications(ctx)
	patterns := make([]string, len(prefixes))
	for i, p := range prefixes {
		patterns[i] = likePrefix(p)
	}
	if types == nil {
		types = []string{}
	}
	every = max(every, FilteredReadInterval)
	backoff := time.Duration(0)
	var lastRead time.Time
	for {
		if wait := every - time.Since(lastRead); wait > 0 && !eventstore.Sleep(ctx, wait) {
			return ctx.Err()
		}
		wake := s.wake.wait() // taken before reading, so no append between read and wait is missed
		lastRead = time.Now()
		batch, upTo, full, err := s.readFiltered(ctx, from, patterns, types)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return err
		}
		if from.Less(upTo) {
			from = upTo
			if err := handle(ctx, batch, upTo); err != nil {
				return err
			}
			backoff = 0
			if full {
				lastRead = time.Time{} // catching up: read on at once
			}
			continue
		}
		if _, backoff, err = s.idleWait(ctx, wake, notified, backoff); err != nil {
			return err
		}
	}
}

// readFilteredSQL scans the next SubscribeBatch positions of the log after ($1, $2) as
// readAllSQL does, but reads only their stream id and type; it returns the matching events
// (stream id LIKE one of $3, type one of $4 unless $4 is empty), each with the last scanned
// position and how many were scanned, or one row of nulls with them when none matches, or no row
// when nothing was scanned. Every parameter goes through a sub-select for the reason readAllSQL's
// do: PostgreSQL then keeps the prepared statement's generic plan (the same plan) instead of
// planning every read again, which cost about three times running it.
var readFilteredSQL = `WITH scanned AS MATERIALIZED (
		SELECT tx_id, seq, stream_id, type FROM events
		WHERE (tx_id, seq) > (SELECT $1::bigint, $2::bigint) AND tx_id < ` + logHorizon + `
		ORDER BY tx_id, seq LIMIT ` + strconv.Itoa(SubscribeBatch) + `),
	last AS (SELECT tx_id, seq, (SELECT count(*) FROM scanned) AS n FROM scanned ORDER BY tx_id DESC, seq DESC LIMIT 1)
	SELECT last.tx_id, last.seq, last.n, e.tx_id, e.seq, e.event_id, e.stream_id, e.version, e.type, e.data, e.metadata, e.recorded_at, e.prev_hash, e.hash
	FROM last LEFT JOIN LATERAL (
		SELECT ev.* FROM scanned s JOIN events ev ON ev.tx_id = s.tx_id AND ev.seq = s.seq
		WHERE s.stream_id LIKE ANY ((SELECT $3::text[])::text[])
			AND ((SELECT cardinality($4::text[])) = 0 OR s.type = ANY ((SELECT $4::text[])::text[]))
	) e ON true
	ORDER BY e.tx_id, e.seq`

// readFiltered reads the events after from that match the patterns and types, the position the
// read covered (from when nothing was scanned), and whether it scanned a full SubscribeBatch.
func (s *Store) readFiltered(ctx context.Context, from eventstore.Position, patterns, types []string) ([]eventstore.RecordedEvent, eventstore.Position, bool, error) {
	rows, err := s.pool.Query(ctx, readFilteredSQL, int64(from.Commit), int64(from.Prepare), patterns, types)
	if err != nil {
		return nil, from, false, fmt.Errorf("read filtered from %s: %w", from, err)
	}
	defer rows.Close()
	upTo, full := from, false
	var out []eventstore.RecordedEvent
	for rows.Next() {
		var lastTx, lastSeq, n int64
		var txID, seq, version *int64
		var e eventstore.RecordedEvent
		var id *uuid.UUID
		var stream, typ *string
		var data, meta []byte
		var at *time.Time
		if err := rows.Scan(&lastTx, &lastSeq, &n, &txID, &seq, &id, &stream, &version, &typ, &data, &meta, &at, &e.PrevHash, &e.Hash); err != nil {
			return nil, from, false, fmt.Errorf("scan event: %w", err)
		}
		upTo, full = eventstore.Position{Commit: uint64(lastTx), Prepare: uint64(lastSeq)}, n >= SubscribeBatch
		if txID == nil {
			continue // nothing matched
		}
		e.Position = eventstore.Position{Commit: uint64(*txID), Prepare: uint64(*seq)}
		e.ID, e.StreamID, e.Version, e.Type = *id, *stream, uint64(*version), *typ
		e.Data, e.Metadata, e.RecordedAt = data, meta, at.UTC()
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, from, false, fmt.Errorf("read filtered events: %w", err)
	}
	return out, upTo, full, nil
}

// likePrefix is a LIKE pattern matching strings that start with p.
func likePrefix(p string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(p) + "%"
}
