package projections

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/payledger/payledger/eventstore"
)

// Preparing is a projector whose batch needs reads on connections of its own (a receipt's history
// through the event-store port, for XP): Prepare makes them before the batch's transaction begins
// and returns what applies the batch in it. Made inside it, they left the transaction idle, and
// every projector transaction is ended after 30 s idle (applyIdleLimit): a batch whose reads took
// longer (1,000 confirmations over a slow link, a slow adapter) failed, and was retried the same
// for ever.
type Preparing interface {
	Prepare(ctx context.Context, events []eventstore.RecordedEvent) (apply func(ctx context.Context, tx pgx.Tx) error, err error)
}

// prepare is what applies batch in its transaction: a Preparing projector's reads are made now,
// before it begins.
func (r *Runner) prepare(ctx context.Context, batch []eventstore.RecordedEvent) (func(context.Context, pgx.Tx) error, error) {
	if p, ok := r.proj.(Preparing); ok && len(batch) > 0 {
		return p.Prepare(ctx, batch)
	}
	return func(ctx context.Context, tx pgx.Tx) error { return r.proj.Apply(ctx, tx, batch) }, nil
}
