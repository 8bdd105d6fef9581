package main

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/readmodels"
)

// openReplica opens DATABASE_REPLICA_URL's pool (it may name several hosts) and the router of the
// stale-tolerant reads, probing the replica until close; nil when the variable is unset.
func openReplica(ctx context.Context, cfg config, primary *pgxpool.Pool, log zerolog.Logger) (*readmodels.ReplicaReads, func(), error) {
	if cfg.DatabaseReplicaURL == "" {
		return nil, func() {}, nil
	}
	pc, err := pgxpool.ParseConfig(cfg.DatabaseReplicaURL)
	if err != nil {
		return nil, nil, fmt.Errorf("parse DATABASE_REPLICA_URL: %w", err)
	}
	pc.MaxConns = int32(cfg.DBMaxConns)
	pc.ConnConfig.ConnectTimeout = 3 * time.Second
	tuneForFailover(pc)
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		return nil, nil, fmt.Errorf("open replica pool: %w", err)
	}
	r := readmodels.NewReplicaReads(primary, pool, time.Now, log.With().Str("component", "replica").Logger())
	runCtx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = r.Run(runCtx) }()
	return r, func() { cancel(); <-done; pool.Close() }, nil
}
