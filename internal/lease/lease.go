// Package lease keeps a claim with an expiry held while the work it covers runs: the claim can then
// be short, so that one whose holder stopped (killed, crashed) is taken over soon, while work that
// outlasts it keeps it.
package lease

import (
	"context"
	"sync"
	"time"
)

// Hold calls renew every interval until the returned stop is called. A renewal that fails is
// passed to failed and the next one is tried at its time: the holder's work goes on, and if
// renewals keep failing its claim lapses as a stopped holder's would. stop cancels a renewal
// under way, waits for it, and may be called more than once (a deferred call after an explicit
// one).
func Hold(ctx context.Context, interval time.Duration, renew func(context.Context) error, failed func(error)) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if err := renew(ctx); err != nil && ctx.Err() == nil {
					failed(err)
				}
			}
		}
	}()
	return sync.OnceFunc(func() { cancel(); <-done })
}
