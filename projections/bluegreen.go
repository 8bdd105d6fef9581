package projections

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/readmodels"
)

// LogReader reads the global log.
type LogReader interface {
	ReadAll(ctx context.Context, from eventstore.Position, limit int) ([]eventstore.RecordedEvent, error)
}

// txLogReader reads the global log in a given transaction (the PostgreSQL event store).
type txLogReader interface {
	ReadAllIn(ctx context.Context, tx pgx.Tx, from, to eventstore.Position, limit int) ([]eventstore.RecordedEvent, error)
}

const shadowTable = "receipts_next"

// ErrRebuildRunning refuses a blue/green rebuild while another one runs (in any process).
var ErrRebuildRunning = errors.New("another rebuild of receipts is running")

// keepListedAt gives the shadow's rows the time their live rows were written (listed_at,
// migration 035), which the rebuild's inserts set to their own: a restarted deposit detector
// looks back for the rows written since its last step, and would take every rebuilt row for one
// (a look-back over the whole late-payment watch). Only the rows of receipts created at or after
// from (their first event's position) are compared: fillShadow's second pass looks only at those
// its second catch-up added. It runs before the swap's lock, so reads do not wait for it; a row
// the swap's own replay adds was written during the rebuild, and keeps the rebuild's time. The
// sweeps trigger finds such an update's version recorded: no write.
func keepListedAt(ctx context.Context, pool *pgxpool.Pool, from eventstore.Position) error {
	_, err := pool.Exec(ctx, `UPDATE `+shadowTable+` n SET listed_at = r.listed_at FROM receipts r
		WHERE r.receipt_id = n.receipt_id AND r.listed_at < n.listed_at AND (n.pos_commit, n.pos_prepare) >= ($1, $2)`,
		int64(from.Commit), int64(from.Prepare))
	if err != nil {
		return fmt.Errorf("keep the rows' listed_at: %w", err)
	}
	return nil
}

// fillShadow replays the log into the shadow up to the live checkpoint, outside any long
// transaction, and gives its rows their live listed_at; it returns where it stopped and how many
// events it replayed. The copy of listed_at rewrites every row (seconds per 100,000 receipts), and
// the events the live projector applied meanwhile were all replayed under the swap's lock, which
// every order and status read waits on: so the shadow catches up once more after it, and only the
// rows that catch-up added are copied again.
func fillShadow(ctx context.Context, pool *pgxpool.Pool, log LogReader, shadow Receipts, progress func(done uint64)) (eventstore.Position, uint64, error) {
	pos, done, err := catchUpShadow(ctx, pool, log, shadow, eventstore.Start, 0, progress)
	if err != nil {
		return pos, done, err
	}
	if err := keepListedAt(ctx, pool, eventstore.Start); err != nil {
		return pos, done, err
	}
	copied := pos
	if pos, done, err = catchUpShadow(ctx, pool, log, shadow, pos, done, progress); err != nil {
		return pos, done, err
	}
	return pos, done, keepListedAt(ctx, pool, copied)
}

// RebuildReceiptsBlueGreen rebuilds the receipts read model into a fresh table while reads (and
// the live projector) keep using the live one, then swaps the tables in one transaction at the
// live projector's checkpoint. The shadow never passes the live checkpoint, so the live
// projector resumes exactly where the swap left it and no status change misses its webhook.
// progress, when set, is told how many events were replayed. Errors: ErrRebuildRunning,
// ErrLiveTableChanged, ErrLiveTableHeld (the live table untouched: run it again), the database's.
func RebuildReceiptsBlueGreen(ctx context.Context, pool *pgxpool.Pool, log LogReader, progress func(done uint64)) error {
	release, err := lockRebuild(ctx, pool)
	if err != nil {
		return err
	}
	defer release()
	shadow := Receipts{Shadow: shadowTable}
	// LIKE copies the indexes, not the triggers: the shadow gets them here (migration 030), so
	// that the table swapped in keeps them and what its replay makes sweepable is recorded.
	if _, err := pool.Exec(ctx, `DROP TABLE IF EXISTS `+shadowTable+`; CREATE TABLE `+shadowTable+` (LIKE receipts INCLUDING ALL);
		SELECT receipts_attach_triggers('`+shadowTable+`')`); err != nil {
		return fmt.Errorf("create shadow table: %w", err)
	}
	pos, done, err := fillShadow(ctx, pool, log, shadow, progress)
	if err != nil {
		return err
	}
	if done, err = swapWhenFree(ctx, pool, log, shadow, pos, done, progress); err != nil {
		return err
	}
	if progress != nil {
		progress(done)
	}
	return nil
}

// The swap's waits for a lock (the live table's, first) are bounded: PostgreSQL queues every later
// read and write of receipts behind the swap's ACCESS EXCLUSIVE request, so a transaction that
// read the table and stays open (a session left idle in transaction, a backup, a long report)
// held every order, status read and projector batch for as long as it stayed open. A swap that
// waited swapLockTimeout lets the queue go and tries again after swapPause, the shadow catching up
// meanwhile, swapAttempts times in all (about two minutes) before it gives up, naming the cause.
const (
	swapLockTimeout = time.Second
	swapPause       = 2 * time.Second
	swapAttempts    = 40
)

// ErrLiveTableHeld: the swap found the receipts table held by another transaction at every
// attempt; the live table is untouched and the rebuild can run again.
var ErrLiveTableHeld = errors.New("the receipts table stayed held by another transaction (an open transaction, a backup, a long query: see pg_locks and pg_stat_activity)")

// swapWhenFree swaps shadow in (swapAt), from pos with done events replayed, trying again while the
// live table stays held (see swapLockTimeout); it returns how many events were replayed in all.
func swapWhenFree(ctx context.Context, pool *pgxpool.Pool, log LogReader, shadow Receipts, pos eventstore.Position, done uint64,
	progress func(done uint64)) (uint64, error) {
	for attempt := 1; ; attempt++ {
		n, err := swapAt(ctx, pool, log, shadow, pos)
		var pgErr *pgconn.PgError
		if err == nil || !errors.As(err, &pgErr) || pgErr.Code != "55P03" { // lock_not_available
			return done + n, err
		}
		if attempt == swapAttempts {
			return done, fmt.Errorf("blue/green rebuild: %w; the swap waited %d times for %s", ErrLiveTableHeld, attempt, swapLockTimeout)
		}
		if !eventstore.Sleep(ctx, swapPause) {
			return done, ctx.Err()
		}
		copied := pos
		if pos, done, err = catchUpShadow(ctx, pool, log, shadow, pos, done, progress); err != nil {
			return done, err
		}
		if err := keepListedAt(ctx, pool, copied); err != nil {
			return done, err
		}
	}
}

// swapAt replays what the live projector applied after pos into shadow and swaps it in, in one
// transaction holding the live table's lock; it returns how many events it replayed.
func swapAt(ctx context.Context, pool *pgxpool.Pool, log LogReader, shadow Receipts, pos eventstore.Position) (uint64, error) {
	tx, err := pool.Begin(ctx)
	if err != nil {
		return 0, err
	}
	defer func() { _ = tx.Rollback(context.Background()) }()
	if _, err := tx.Exec(ctx, `SELECT set_config('lock_timeout', $1, true)`, fmt.Sprint(swapLockTimeout.Milliseconds())); err != nil {
		return 0, fmt.Errorf("bound the swap's lock waits: %w", err)
	}
	// The live projector's next batch blocks on this lock; reads wait only for the swap itself.
	if _, err := tx.Exec(ctx, `LOCK TABLE receipts IN ACCESS EXCLUSIVE MODE`); err != nil {
		return 0, fmt.Errorf("lock live table: %w", err)
	}
	var c, p int64
	if err := tx.QueryRow(ctx, `SELECT commit_pos, prepare_pos FROM projection_checkpoints WHERE name = 'receipts'`).Scan(&c, &p); err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return 0, fmt.Errorf("read live checkpoint: %w", err)
	}
	live := eventstore.Position{Commit: uint64(c), Prepare: uint64(p)}
	n, reached, err := replayUpTo(ctx, log, pool, tx, shadow, pos, live)
	if err != nil {
		return 0, err
	}
	if reached.Less(live) {
		// Swapping now would lose the receipts between reached and live.
		return 0, fmt.Errorf("blue/green rebuild: the log read ended at %s, before the live checkpoint %s", reached, live)
	}
	if err := swapIn(ctx, tx); err != nil {
		return 0, err
	}
	return n, tx.Commit(ctx)
}

// lockRebuild takes the lock that one blue/green rebuild holds while it runs, or refuses with
// ErrRebuildRunning: the shadow table has one name, and a second rebuild dropped and created it
// again under the first, which then swapped the second's table (empty, or half replayed) in for
// the live one. The lock is a session's, on a connection of its own (not the pool's, which the
// replay uses), so it ends with its process; release ends the session.
func lockRebuild(ctx context.Context, pool *pgxpool.Pool) (release func(), err error) {
	conn, err := pgx.ConnectConfig(ctx, pool.Config().ConnConfig.Copy())
	if err != nil {
		return nil, fmt.Errorf("connect for the rebuild's lock: %w", err)
	}
	key := lockKey("rebuild:" + shadowTable)
	closeConn := func() { _ = conn.Close(context.Background()) }
	var got bool
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, key).Scan(&got); err != nil {
		closeConn()
		return nil, fmt.Errorf("the rebuild's lock: %w", err)
	}
	if !got {
		closeConn()
		return nil, fmt.Errorf("%w: wait for it to end (its shadow table %s would be replaced under it)", ErrRebuildRunning, shadowTable)
	}
	// Unlocked before the session ends: the server ends a closed session, and frees its locks,
	// a moment after the close, and a rebuild started at once was refused.
	return func() {
		uctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_, _ = conn.Exec(uctx, `SELECT pg_advisory_unlock($1)`, key)
		closeConn()
	}, nil
}

// swapIn replaces the live table by the shadow in tx, which holds the live table's lock, under
// the live table's name and its indexes' names.
func swapIn(ctx context.Context, tx pgx.Tx) error {
	if err := sameShape(ctx, tx); err != nil {
		return err
	}
	renames, err := indexRenames(ctx, tx)
	if err != nil {
		return err
	}
	swap := []string{`ALTER TABLE receipts RENAME TO receipts_old`, `ALTER TABLE ` + shadowTable + ` RENAME TO receipts`, `DROP TABLE receipts_old`}
	swap = append(swap, renames...)
	swap = append(swap, `SELECT pg_notify('`+readmodels.ReceiptsChangedChannel+`', '*')`) // cached statuses came from the old table
	for _, stmt := range swap {
		if _, err := tx.Exec(ctx, stmt); err != nil {
			return fmt.Errorf("swap tables: %w", err)
		}
	}
	return nil
}

// ErrLiveTableChanged refuses the swap of a shadow whose columns, triggers or indexes are no
// longer the live table's: a migration changed the live table while the rebuild ran.
var ErrLiveTableChanged = errors.New("the receipts table changed while it was rebuilt (a migration ran?): run the rebuild again")

// shapeSQL is a table's columns (name, type, not null, default or generated expression), its
// triggers and its indexes' definitions (without their names), in a fixed order.
const shapeSQL = `SELECT
	(SELECT coalesce(string_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod) || ' ' || a.attnotnull::text || ' ' ||
		a.attgenerated::text || ' ' || coalesce(pg_get_expr(d.adbin, d.adrelid), ''), ', ' ORDER BY a.attnum), '')
	 FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
	 WHERE a.attrelid = $1::regclass AND a.attnum > 0 AND NOT a.attisdropped) || ' | ' ||
	(SELECT coalesce(string_agg(t.tgname || ' ' || t.tgfoid::regproc::text, ', ' ORDER BY t.tgname), '')
	 FROM pg_trigger t WHERE t.tgrelid = $1::regclass AND NOT t.tgisinternal) || ' | ' ||
	(SELECT coalesce(string_agg(x.def, ', ' ORDER BY x.def), '') FROM (
		SELECT regexp_replace(pg_get_indexdef(i.indexrelid), '^CREATE (UNIQUE )?INDEX \S+ ON \S+ ', '\1') AS def
		FROM pg_index i WHERE i.indrelid = $1::regclass) x)`

// sameShape refuses the swap (ErrLiveTableChanged) when the shadow, made LIKE the live table when
// the rebuild began, no longer has its shape: a migration of a rolling upgrade that added a
// column, an index or a trigger to the live table meanwhile would have been dropped with it, and
// the upgraded instances' statements failed on the swapped-in table. It runs under the live
// table's lock, so no migration changes it between the check and the swap.
func sameShape(ctx context.Context, tx pgx.Tx) error {
	var live, shadow string
	if err := tx.QueryRow(ctx, shapeSQL, "receipts").Scan(&live); err != nil {
		return fmt.Errorf("read the live table's shape: %w", err)
	}
	if err := tx.QueryRow(ctx, shapeSQL, shadowTable).Scan(&shadow); err != nil {
		return fmt.Errorf("read the shadow table's shape: %w", err)
	}
	if live != shadow {
		return fmt.Errorf("%w (live: %s; rebuilt: %s)", ErrLiveTableChanged, live, shadow)
	}
	return nil
}

// indexPairsSQL pairs each index of the shadow table with the live table's index of the same
// definition (its text without its name and table; equal definitions in name order), where their
// names differ.
const indexPairsSQL = `WITH defs AS (
		SELECT i.indrelid = '` + shadowTable + `'::regclass AS shadow, c.relname::text AS name,
			regexp_replace(pg_get_indexdef(i.indexrelid), '^CREATE (UNIQUE )?INDEX \S+ ON \S+ ', '\1') AS def
		FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
		WHERE i.indrelid IN ('receipts'::regclass, '` + shadowTable + `'::regclass)),
	numbered AS (SELECT shadow, name, def, row_number() OVER (PARTITION BY shadow, def ORDER BY name) AS n FROM defs)
	SELECT s.name, l.name FROM numbered s JOIN numbered l ON l.def = s.def AND l.n = s.n
	WHERE s.shadow AND NOT l.shadow AND s.name <> l.name ORDER BY l.name`

// indexRenames are the statements that give the shadow's indexes (and the constraints they back)
// the live table's names, once the live table is dropped: LIKE names them after the shadow
// (receipts_next_pkey, receipts_next_expr_idx, ...), and a swapped-in table kept those names, so
// a migration naming an index of receipts (022 drops receipts_wallet_pending) failed on a
// database rebuilt before it, and serve did not start.
func indexRenames(ctx context.Context, tx pgx.Tx) ([]string, error) {
	rows, err := tx.Query(ctx, indexPairsSQL)
	if err != nil {
		return nil, fmt.Errorf("pair the shadow's indexes with the live ones: %w", err)
	}
	var out []string
	var shadow, live string
	_, err = pgx.ForEachRow(rows, []any{&shadow, &live}, func() error {
		out = append(out, `ALTER INDEX `+pgx.Identifier{shadow}.Sanitize()+` RENAME TO `+pgx.Identifier{live}.Sanitize())
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("pair the shadow's indexes with the live ones: %w", err)
	}
	return out, nil
}

// catchUpShadow replays into shadow, from pos (done events replayed so far), up to the live
// checkpoint as it moves, outside any long transaction, and returns where it stopped and how many
// events were replayed in all.
func catchUpShadow(ctx context.Context, pool *pgxpool.Pool, log LogReader, shadow Receipts, pos eventstore.Position, done uint64,
	progress func(done uint64)) (eventstore.Position, uint64, error) {
	for {
		live, err := liveCheckpoint(ctx, pool)
		if err != nil {
			return pos, done, err
		}
		n, next, err := replayUpTo(ctx, log, pool, nil, shadow, pos, live)
		if err != nil {
			return pos, done, err
		}
		done, pos = done+n, next
		if progress != nil {
			progress(done)
		}
		if n == 0 || !pos.Less(live) {
			return pos, done, nil
		}
	}
}

func liveCheckpoint(ctx context.Context, pool *pgxpool.Pool) (eventstore.Position, error) {
	var c, p int64
	err := pool.QueryRow(ctx, `SELECT commit_pos, prepare_pos FROM projection_checkpoints WHERE name = 'receipts'`).Scan(&c, &p)
	if errors.Is(err, pgx.ErrNoRows) {
		return eventstore.Position{}, nil
	}
	return eventstore.Position{Commit: uint64(c), Prepare: uint64(p)}, err
}

// replayUpTo applies the events in (from, to] to the shadow projector, in tx when given (else one
// transaction per batch), and returns how many it applied and the position reached.
func replayUpTo(ctx context.Context, log LogReader, pool *pgxpool.Pool, tx pgx.Tx, proj Receipts, from, to eventstore.Position) (uint64, eventstore.Position, error) {
	var n uint64
	read := log.ReadAll
	if in, ok := log.(txLogReader); ok && tx != nil {
		// Under the live table's lock: not a connection of the pool, whose connections the
		// requests blocked on that lock may all hold (that wait never ended).
		read = func(ctx context.Context, from eventstore.Position, limit int) ([]eventstore.RecordedEvent, error) {
			return in.ReadAllIn(ctx, tx, from, to, limit)
		}
	}
	for from.Less(to) {
		batch, err := read(ctx, from, 1000)
		if err != nil {
			return n, from, err
		}
		keep := batch[:0]
		for _, e := range batch {
			if !to.Less(e.Position) {
				keep = append(keep, e)
			}
		}
		if len(keep) == 0 {
			return n, from, nil
		}
		apply := func(t pgx.Tx) error { return proj.Apply(ctx, t, keep) }
		if tx != nil {
			err = apply(tx)
		} else {
			err = pgx.BeginFunc(ctx, pool, apply)
		}
		if err != nil {
			return n, from, fmt.Errorf("replay: %w", err)
		}
		n += uint64(len(keep))
		from = keep[len(keep)-1].Position
	}
	return n, from, nil
}
