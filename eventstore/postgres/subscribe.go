package postgres

import (
	"context"
	"time"

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
	notified := make(chan struct{}, 1)
	if s.notifyMode != NotifyOff {
		go s.listen(ctx, notified)
	}
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
		// After a wake-up that found nothing, an older transaction is still open and hides newer
		// events; look again soon rather than at the next poll.
		wait := s.pollInterval
		if backoff > 0 {
			wait = min(backoff, s.pollInterval)
		}
		timer := time.NewTimer(wait)
		woken := true
		select {
		case <-ctx.Done():
			timer.Stop()
			return ctx.Err()
		case <-wake:
			skip = floor != nil
		case <-notified:
		case <-timer.C:
			woken = false
		}
		timer.Stop()
		switch {
		case woken:
			backoff = time.Millisecond
		case backoff > 0:
			backoff *= 2
			if backoff > s.pollInterval {
				backoff = 0
			}
		}
	}
}

// readAllSQL reads the log after ($1, $2), never past a transaction still running (see the
// events table's comment).
const readAllSQL = `SELECT ` + selectColumns + ` FROM events
		WHERE (tx_id, seq) > ($1, $2) AND tx_id < pg_snapshot_xmin(pg_current_snapshot())::text::bigint
		ORDER BY tx_id, seq LIMIT $3`

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

// listen forwards NOTIFYs on Channel to notified until ctx ends, reconnecting after failures.
// It uses its own connection so that a long wait never holds one of the pool's.
func (s *Store) listen(ctx context.Context, notified chan<- struct{}) {
	for ctx.Err() == nil {
		conn, err := pgx.ConnectConfig(ctx, s.pool.Config().ConnConfig.Copy())
		if err == nil {
			if _, err = conn.Exec(ctx, "LISTEN "+Channel); err == nil {
				for {
					if _, err = conn.WaitForNotification(ctx); err != nil {
						break
					}
					select {
					case notified <- struct{}{}:
					default:
					}
				}
			}
			_ = conn.Close(context.Background())
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}
