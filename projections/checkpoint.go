package projections

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payledger/payledger/eventstore"
)

// The projection_checkpoints table: a projector's checkpoint (the position its read models
// reflect), moved in the same transaction as the read-model writes, and the replay mark a rebuild
// leaves behind.

// checkpointSQL moves the checkpoint from $4,$5 to $2,$3 and fails (division by zero) when it was
// not at $4,$5: in a pipeline the failure also skips the COMMIT queued after it.
const checkpointSQL = `WITH moved AS (UPDATE projection_checkpoints SET commit_pos = $2, prepare_pos = $3, updated_at = now()
		WHERE name = $1 AND commit_pos = $4 AND prepare_pos = $5 RETURNING 1)
	SELECT 1 / count(*) FROM moved`

// queueCheckpoint queues the move of the checkpoint from `from` to `to`, at the end of a batch's
// transaction.
//
// A read model is rebuilt from the event log: if a crash loses this commit, it loses the
// checkpoint with it and the events are applied again. So the commit does not wait for its WAL
// flush (the next synchronous commit of anyone flushes it), which keeps a flush off the path of
// every command waiting to read its own write.
func (r *Runner) queueCheckpoint(writes *pgx.Batch, from, to eventstore.Position) {
	writes.Queue(`SET LOCAL synchronous_commit TO off`)
	writes.Queue(checkpointSQL, r.proj.Name(), int64(to.Commit), int64(to.Prepare), int64(from.Commit), int64(from.Prepare))
}

// checkpointErr turns checkpointSQL's failure into errCheckpointMoved.
func checkpointErr(err error) error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "22012" {
		return errCheckpointMoved
	}
	return err
}

func (r *Runner) ensureCheckpoint(ctx context.Context) error {
	_, err := r.pool.Exec(ctx, `INSERT INTO projection_checkpoints (name) VALUES ($1) ON CONFLICT DO NOTHING`, r.proj.Name())
	return err
}

func (r *Runner) loadCheckpoint(ctx context.Context) (eventstore.Position, error) {
	// Run created the row; until then (another process's runner) the checkpoint is the start.
	var c, p int64
	err := r.pool.QueryRow(ctx, `SELECT commit_pos, prepare_pos FROM projection_checkpoints WHERE name = $1`, r.proj.Name()).Scan(&c, &p)
	if errors.Is(err, pgx.ErrNoRows) {
		return eventstore.Position{}, nil
	}
	if err != nil {
		return eventstore.Position{}, fmt.Errorf("load checkpoint: %w", err)
	}
	return eventstore.Position{Commit: uint64(c), Prepare: uint64(p)}, nil
}

// Rebuild empties the projector's read models and resets its checkpoint to the start of the
// log, in one transaction. The leader (in this process or another) notices that its checkpoint
// moved and replays every event from the beginning.
func Rebuild(ctx context.Context, pool *pgxpool.Pool, proj Projector) error {
	tx, err := pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("rebuild %s: %w", proj.Name(), err)
	}
	defer func() { _ = tx.Rollback(context.Background()) }()
	// Read models first, then the checkpoint: the same lock order as a leader's batch.
	if err := proj.Reset(ctx, tx); err != nil {
		return fmt.Errorf("rebuild %s: reset: %w", proj.Name(), err)
	}
	// The replay mark is the furthest position the projector had applied: events up to it were
	// already acted on, and a replay must only rebuild state (see queueReplayMark).
	if _, err := tx.Exec(ctx, `INSERT INTO projection_checkpoints (name) VALUES ($1)
		ON CONFLICT (name) DO UPDATE SET
			replay_commit = CASE WHEN (projection_checkpoints.commit_pos, projection_checkpoints.prepare_pos) > (projection_checkpoints.replay_commit, projection_checkpoints.replay_prepare)
				THEN projection_checkpoints.commit_pos ELSE projection_checkpoints.replay_commit END,
			replay_prepare = CASE WHEN (projection_checkpoints.commit_pos, projection_checkpoints.prepare_pos) > (projection_checkpoints.replay_commit, projection_checkpoints.replay_prepare)
				THEN projection_checkpoints.prepare_pos ELSE projection_checkpoints.replay_prepare END,
			commit_pos = 0, prepare_pos = 0, updated_at = now()`, proj.Name()); err != nil {
		return fmt.Errorf("rebuild %s: reset checkpoint: %w", proj.Name(), err)
	}
	return tx.Commit(ctx)
}

// queueReplayMark queues the read of the position up to which a projector's events were already
// applied before its last rebuild (left zero if it was never rebuilt). Side effects (webhooks)
// must not be repeated for events at or below it.
func queueReplayMark(batch *pgx.Batch, name string, mark *eventstore.Position) {
	batch.Queue(`SELECT replay_commit, replay_prepare FROM projection_checkpoints WHERE name = $1`, name).QueryRow(func(row pgx.Row) error {
		var c, p int64
		err := row.Scan(&c, &p)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("replay mark: %w", err)
		}
		*mark = eventstore.Position{Commit: uint64(c), Prepare: uint64(p)}
		return nil
	})
}
