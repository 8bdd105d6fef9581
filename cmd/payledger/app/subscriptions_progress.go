package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/projections"
)

// subscriptionsProgress is the charging run's settlement.DueProgress: the log's head, and the
// position the subscriptions read model reflects, its projector's stored checkpoint (written in
// the transaction of the model's writes, reset with the model by a rebuild). It is read from the
// table rather than the runner's memory: a leader notices a rebuild's reset only on its next
// check, and another instance's runner may lead.
type subscriptionsProgress struct {
	store eventstore.Store
	pool  *pgxpool.Pool
}

func (p subscriptionsProgress) Head(ctx context.Context) (eventstore.Position, error) {
	return p.store.Head(ctx)
}

func (p subscriptionsProgress) Applied(ctx context.Context) (eventstore.Position, error) {
	var commit, prepare int64
	err := p.pool.QueryRow(ctx, `SELECT commit_pos, prepare_pos FROM projection_checkpoints WHERE name = $1`,
		projections.Subscriptions{}.Name()).Scan(&commit, &prepare)
	if errors.Is(err, pgx.ErrNoRows) {
		return eventstore.Start, nil // the projector has not run yet: nothing applied
	}
	if err != nil {
		return eventstore.Start, fmt.Errorf("subscriptions checkpoint: %w", err)
	}
	return eventstore.Position{Commit: uint64(commit), Prepare: uint64(prepare)}, nil
}
