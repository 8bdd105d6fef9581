package postgres

import (
	"context"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// Wake-ups from other processes: a store LISTENs on Channel on one connection of its own while it
// has subscriptions, and forwards each NOTIFY to all of them. One connection per subscription
// (serve's four projectors: receipts, receipt.created, users, subscriptions) had PostgreSQL
// signal, and this process read, the same notification four times: after every group commit
// under the order load (issue 38).

// listeners are the subscriptions' wake-up channels and the listening goroutine's stop.
type listeners struct {
	mu    sync.Mutex
	chans map[chan struct{}]struct{}
	stop  context.CancelFunc // ends the listening goroutine; nil while none runs
}

// notifications returns a channel that receives (without blocking the listener: it holds one
// wake-up) when a NOTIFY on Channel arrives, until ctx ends; nil (never) with NotifyOff. The
// store listens while at least one such channel is live.
func (s *Store) notifications(ctx context.Context) <-chan struct{} {
	if s.notifyMode == NotifyOff {
		return nil
	}
	ch := make(chan struct{}, 1)
	l := &s.listens
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.chans == nil {
		l.chans = map[chan struct{}]struct{}{}
	}
	l.chans[ch] = struct{}{}
	if l.stop == nil {
		var lctx context.Context
		lctx, l.stop = context.WithCancel(context.Background())
		go s.listen(lctx)
	}
	context.AfterFunc(ctx, func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		delete(l.chans, ch)
		if len(l.chans) == 0 && l.stop != nil {
			l.stop()
			l.stop = nil
		}
	})
	return ch
}

// forward hands a NOTIFY to every subscription's channel.
func (l *listeners) forward() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for ch := range l.chans {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

// listen forwards NOTIFYs on Channel until ctx ends, reconnecting after failures. It uses its own
// connection so that a long wait never holds one of the pool's.
func (s *Store) listen(ctx context.Context) {
	for ctx.Err() == nil {
		conn, err := pgx.ConnectConfig(ctx, s.pool.Config().ConnConfig.Copy())
		if err == nil {
			if _, err = conn.Exec(ctx, "LISTEN "+Channel); err == nil {
				// A NOTIFY sent while no connection listened (the first one, or a reconnect) is
				// lost: wake every subscription to read once rather than wait for its poll.
				s.listens.forward()
				for {
					if _, err = conn.WaitForNotification(ctx); err != nil {
						break
					}
					s.listens.forward()
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
