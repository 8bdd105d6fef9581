package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/projections"
)

// projectorsByName lists the projectors a rebuild can name.
func projectorsByName() map[string]projections.Projector {
	return map[string]projections.Projector{"receipts": projections.Receipts{}}
}

// projectionsCommand: `projections rebuild [name|--all]` empties the read models and replays the
// log into them. When a serve process leads the projector, it replays and this command follows
// its progress; otherwise this command replays itself.
func projectionsCommand(ctx context.Context, cfg config, log zerolog.Logger, args []string, stdout io.Writer) error {
	if len(args) < 1 || args[0] != "rebuild" || len(args) > 2 {
		return errors.New("usage: payledger projections rebuild [name|--all]")
	}
	names := []string{"receipts"}
	if len(args) == 2 && args[1] != "--all" {
		if _, ok := projectorsByName()[args[1]]; !ok {
			return fmt.Errorf("unknown projection %q (known: receipts)", args[1])
		}
		names = []string{args[1]}
	}
	stop, err := prepareDatabase(ctx, cfg, log)
	if stop != nil {
		defer stop()
	}
	if err != nil {
		return err
	}
	pool, err := pgxpool.New(ctx, cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer pool.Close()
	store, closeStore, err := openStore(cfg, pool)
	if err != nil {
		return err
	}
	defer closeStore()
	for _, name := range names {
		if err := rebuildOne(ctx, pool, store, projectorsByName()[name], log); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "rebuilt %s\n", name)
	}
	return nil
}

func rebuildOne(ctx context.Context, pool *pgxpool.Pool, store eventstore.Store, proj projections.Projector, log zerolog.Logger) error {
	var total uint64
	var head eventstore.Position
	var c, p int64
	if err := pool.QueryRow(ctx, `SELECT count(*), coalesce(max(tx_id), 0), coalesce((SELECT max(seq) FROM events WHERE tx_id = (SELECT max(tx_id) FROM events)), 0) FROM events`).
		Scan(&total, &c, &p); err != nil {
		return fmt.Errorf("size the log: %w", err)
	}
	head = eventstore.Position{Commit: uint64(c), Prepare: uint64(p)}
	if err := projections.Rebuild(ctx, pool, proj); err != nil {
		return err
	}
	runner, err := projections.NewRunner(pool, store, proj, log)
	if err != nil {
		return err
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan struct{})
	go func() { defer close(done); _ = runner.Run(runCtx) }() // stands by if a serve process leads
	report := progressReporter(log, "rebuild "+proj.Name())
	start := time.Now()
	for runner.Position().Less(head) {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
		var n uint64
		pos := runner.Position()
		_ = pool.QueryRow(ctx, `SELECT count(*) FROM events WHERE (tx_id, seq) <= ($1, $2)`, int64(pos.Commit), int64(pos.Prepare)).Scan(&n)
		report(n, total, time.Since(start))
	}
	report(total, total, time.Since(start))
	cancel()
	<-done
	return nil
}
