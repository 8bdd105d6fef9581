package readmodels

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Ops answers operational gauges: projection lag and outbox depth.
type Ops struct{ pool *pgxpool.Pool }

// NewOps returns the gauges' source on pool.
func NewOps(pool *pgxpool.Pool) *Ops { return &Ops{pool: pool} }

// lagCap bounds the count of unapplied events, so a scrape stays cheap on a long backlog.
const lagCap = 1_000_000

// ProjectionLag returns, per projector, the events after its checkpoint (up to lagCap) and the
// age in seconds of the oldest of them.
func (o *Ops) ProjectionLag(ctx context.Context) (map[string]ProjectionLagFigures, error) {
	rows, err := o.pool.Query(ctx, `SELECT c.name,
			(SELECT count(*) FROM (SELECT 1 FROM events e WHERE (e.tx_id, e.seq) > (c.commit_pos, c.prepare_pos) LIMIT $1) x),
			coalesce(extract(epoch FROM now() - (SELECT min(recorded_at) FROM (SELECT recorded_at FROM events e
				WHERE (e.tx_id, e.seq) > (c.commit_pos, c.prepare_pos) ORDER BY e.tx_id, e.seq LIMIT 1) y)), 0)
		FROM projection_checkpoints c`, lagCap)
	if err != nil {
		return nil, fmt.Errorf("projection lag: %w", err)
	}
	defer rows.Close()
	out := map[string]ProjectionLagFigures{}
	for rows.Next() {
		var name string
		var f ProjectionLagFigures
		if err := rows.Scan(&name, &f.Events, &f.Seconds); err != nil {
			return nil, err
		}
		out[name] = f
	}
	return out, rows.Err()
}

// ProjectionLagFigures is one projector's lag.
type ProjectionLagFigures struct {
	Events  int64
	Seconds float64
}

// OutboxDepth counts webhook notifications by state.
func (o *Ops) OutboxDepth(ctx context.Context) (map[string]int64, error) {
	rows, err := o.pool.Query(ctx, `SELECT state, count(*) FROM webhook_notifications GROUP BY state`)
	if err != nil {
		return nil, fmt.Errorf("outbox depth: %w", err)
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var st string
		var n int64
		if err := rows.Scan(&st, &n); err != nil {
			return nil, err
		}
		out[st] = n
	}
	return out, rows.Err()
}
