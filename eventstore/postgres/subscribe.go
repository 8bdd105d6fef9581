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
	for {
		wake := s.wake.wait() // taken before reading, so no append between read and wait is missed
		batch, err := s.ReadAll(ctx, from, SubscribeBatch)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return err
		}
		if len(batch) > 0 {
			if err := handle(ctx, batch); err != nil {
				return err
			}
			from = batch[len(batch)-1].Position
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
