package projections

import (
	"context"
	"sync"
	"time"

	"github.com/payledger/payledger/eventstore"
)

// flushIdleSkips writes the checkpoint of a filtered projector that skipped events and then went
// quiet: the skips only write it at most once per skipFlush, when a later read comes, so without
// this the stored checkpoint would trail until the next matching append (a restart would read
// the skipped events again, which is harmless but slow on a long quiet stretch).
func (r *Runner) flushIdleSkips(ctx context.Context, applying *sync.Mutex) {
	t := time.NewTicker(skipFlush)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		applying.Lock()
		r.mu.Lock()
		pending := r.skipped
		r.mu.Unlock()
		if pending && time.Since(r.lastWrite) >= skipFlush {
			pos := r.Position()
			if err := r.applyFrom(ctx, pos, nil, pos, nil); err != nil && ctx.Err() == nil {
				r.log.Warn().Err(err).Msg("write the checkpoint past skipped events")
			}
		}
		applying.Unlock()
	}
}

// watchReset stops the leader's subscription when the stored checkpoint falls behind what it has
// applied: a rebuild reset it while the leader was idle.
func (r *Runner) watchReset(ctx context.Context, stop context.CancelCauseFunc) {
	for eventstore.Sleep(ctx, 200*time.Millisecond) {
		// The position first: the stored checkpoint only moves forward, except in a reset, and a
		// batch committed between the two reads would otherwise look like one.
		applied := r.written()
		stored, err := r.loadCheckpoint(ctx)
		if err == nil && stored.Less(applied) {
			stop(errCheckpointMoved)
			return
		}
	}
}
