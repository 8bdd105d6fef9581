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
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	notified := make(chan struct{}, 1)
	if s.notifyMode != NotifyOff {
		go s.listen(ctx, notified)
	}
	backoff := time.Duration(0)
	var next <-chan prefetched
	for {
		var wake <-chan struct{}
		var batch []eventstore.RecordedEvent
		var err error
		if next != nil { // read while the previous batch was being handled
			r := <-next
			next, wake, batch, err = nil, r.wake, r.batch, r.err
		} else {
			wake = s.wake.wait() // taken before reading, so no append between read and wait is missed
			batch, err = s.ReadAll(ctx, from, SubscribeBatch)
		}
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return err
		}
		if len(batch) > 0 {
			// The read of the following events overlaps the handler's work: a subscriber that
			// keeps up pays one round trip less per batch.
			from = batch[len(batch)-1].Position
			next = s.prefetch(ctx, from)
			if err := handle(ctx, batch); err != nil {
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
