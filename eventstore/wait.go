package eventstore

import (
	"context"
	"time"
)

// Sleep waits d, or until ctx ends: it reports false when ctx ended first. It is the pause of
// the adapters' and subscribers' polling and retry loops, so that none of them outlives its
// context by a whole interval.
func Sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
