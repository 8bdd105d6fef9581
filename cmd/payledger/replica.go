package main

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"
)

// openReplica opens DATABASE_REPLICA_URL's pool (it may name several hosts; tuned like the
// primary's to follow a failover), whose reads app.Build routes through readmodels.ReplicaReads;
// nil when the variable is unset.
func openReplica(ctx context.Context, cfg config) (*pgxpool.Pool, func(), error) {
	if cfg.DatabaseReplicaURL == "" {
		return nil, func() {}, nil
	}
	pool, err := openPoolAt(ctx, "DATABASE_REPLICA_URL", cfg.DatabaseReplicaURL, cfg.DBMaxConns)
	if err != nil {
		return nil, nil, err
	}
	return pool, pool.Close, nil
}
