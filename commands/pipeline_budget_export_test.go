package commands

import (
	"context"
	"time"

	"github.com/payledger/payledger/eventstore"
)

// LeastTries is the pipeline's floor of conflicting tries before it gives up (leastTries).
const LeastTries = leastTries

// ExecuteClocked is Execute with the conflict budget measured on now.
func ExecuteClocked[S any](ctx context.Context, store Store, stream string, agg Aggregate[S], initial S,
	decide func(Loaded[S]) (Decision, error), now func() time.Time) (Loaded[S], eventstore.AppendResult, error) {
	return execute(ctx, store, stream, agg, initial, decide, route{now: now})
}
