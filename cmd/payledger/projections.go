package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/projections"
)

// projectorsByName lists the projectors a rebuild can name, as serve runs them: the runner that
// brings one to the log's head may lead it while serve's leader is away (LiveReceipts). The users
// projector reads receipts' histories from the store rebuildOne is given.
func projectorsByName() map[string]projections.Projector {
	return map[string]projections.Projector{"receipts": projections.LiveReceipts(nil), "users": projections.Users{}, "subscriptions": projections.Subscriptions{}}
}

// projectionsCommand: `projections rebuild [name|--all]` replays the log into fresh read-model
// tables and swaps them in atomically once caught up (blue/green); reads keep answering meanwhile.
func projectionsCommand(ctx context.Context, cfg config, log zerolog.Logger, args []string, stdout io.Writer) error {
	if len(args) < 1 || args[0] != "rebuild" || len(args) > 2 {
		return badUsage("payledger projections: rebuild [name|--all]", projectionsUsage)
	}
	names := []string{"receipts", "users", "subscriptions"}
	if len(args) == 2 && args[1] != "--all" {
		if _, ok := projectorsByName()[args[1]]; !ok {
			return badUsage(fmt.Sprintf("unknown projection %q (known: receipts, users, subscriptions)", args[1]), projectionsUsage)
		}
		names = []string{args[1]}
	}
	pool, store, closeLedger, err := openToolLedger(ctx, cfg, log, migrateLedger)
	if err != nil {
		return err
	}
	defer closeLedger()
	// A head the replay can never reach (verify's check) would hold every rebuild for ever.
	head, err := store.Head(ctx)
	if err != nil {
		return err
	}
	if err := headStarted(ctx, verifyOptions{nextTx: nextTxOf(store)}, head, stdout); err != nil {
		return fmt.Errorf("rebuild: %w (payledger verify)", err)
	}
	for _, name := range names {
		if err := rebuildOne(ctx, pool, store, projectorsByName()[name], log); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "rebuilt %s\n", name)
	}
	return nil
}

// rebuildOne rebuilds one projector's read model. Events come only through the event-store port
// (store), so the rebuild works on every adapter; only the read models are PostgreSQL tables.
func rebuildOne(ctx context.Context, pool *pgxpool.Pool, store eventstore.Store, proj projections.Projector, log zerolog.Logger) error {
	// The port has no count: one pass over the log up to its committed head sizes it for the
	// progress line. A rebuild replays the whole log anyway, so this at most doubles the reading.
	head, total, err := logHead(ctx, store, log)
	if err != nil {
		return err
	}
	if _, ok := proj.(projections.Users); ok {
		proj = projections.NewUsers(store) // each paid receipt's history is read through the port too
	}
	report := progressReporter(log, "rebuild "+proj.Name())
	start := time.Now()
	if _, blueGreen := proj.(projections.Receipts); !blueGreen {
		// XP is reset in place and replayed by the live runner (or the one below).
		if err := projections.Rebuild(ctx, pool, proj); err != nil {
			return err
		}
	} else if err := projections.RebuildReceiptsBlueGreen(ctx, pool, store, func(done uint64) { report(done, total, time.Since(start)) }); err != nil {
		// Blue/green: reads keep answering from the live table until the swap.
		return err
	}
	if total == 0 {
		return nil
	}
	// The swap happened at the live checkpoint; bring the live projector to the head of the log
	// (a serve process that leads it does that itself, and this runner only follows).
	runner, err := projections.NewRunner(pool, store, proj, log)
	if err != nil {
		return err
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	// A runner that stops (an event its projector cannot decode: projections.ErrUndecodable) ends
	// the wait with its error at once; it was waited for until the stall, blamed on an open
	// transaction.
	waitCtx, stopWait := context.WithCancelCause(ctx)
	defer stopWait(nil)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := runner.Run(runCtx); runCtx.Err() == nil {
			stopWait(fmt.Errorf("rebuild %s: the projector stopped: %w", proj.Name(), err))
		}
	}()
	defer func() { cancel(); <-done }()
	err = waitCaughtUp(waitCtx, runner, head, replayWait{tick: 10 * time.Second, stall: rebuildStall}, log)
	if cause := context.Cause(waitCtx); err != nil && ctx.Err() == nil && cause != nil {
		return cause
	}
	return err
}

// rebuildStall is how long a rebuild's replay may make no progress before the command gives up.
const rebuildStall = 10 * time.Minute

// catchingUp is what waitCaughtUp watches: a projections.Runner.
type catchingUp interface {
	Name() string
	Position() eventstore.Position
	WaitFor(ctx context.Context, pos eventstore.Position) error
	Failing() (since, last time.Time, err error)
}

// stalledBy is why r's replay does not move: what its runner reports (a batch failing on every
// retry, one under way, events held back), else heldBackHint (another instance leads the replay).
// The hint alone sent an operator hunting for an open transaction while a batch failed each
// second for the whole 10 minutes.
func stalledBy(r catchingUp) string {
	if _, _, err := r.Failing(); err != nil {
		return err.Error()
	}
	return heldBackHint
}

// waitCaughtUp waits until r reaches head for as long as r keeps moving, and gives up only after
// stall without progress. A replay takes as long as the log needs (the users projector folds each
// paid receipt: a million of them is well over 10 minutes), and the command used to give up after
// 10 minutes in all: exit 1 while the rebuild went on, or, with no serve running, the replay
// stopped with the command and each new attempt reset the read models again, never finishing.
func waitCaughtUp(ctx context.Context, r catchingUp, head eventstore.Position, w replayWait, log zerolog.Logger) error {
	last, moved, quiet := r.Position(), time.Now(), time.Duration(0)
	for {
		waitCtx, stop := context.WithTimeout(ctx, w.tick)
		err := r.WaitFor(waitCtx, head)
		stop()
		if err == nil || ctx.Err() != nil {
			return err
		}
		now := r.Position()
		if last.Less(now) {
			last, moved, quiet = now, time.Now(), 0
			log.Info().Str("projection", r.Name()).Stringer("position", now).Stringer("head", head).Msg("rebuild: replaying to the log's head")
			continue
		}
		// Counted in ticks, each at least tick long: on a loaded machine one wait can overrun.
		if quiet += w.tick; quiet >= w.stall {
			return fmt.Errorf("rebuild %s: no progress for %s at %s (the log's head is %s; %s): %w", r.Name(), w.stall, now, head, stalledBy(r), err)
		}
		// Silence here read as a hung command; say what it waits for, as verify does.
		log.Warn().Str("projection", r.Name()).Stringer("position", now).Stringer("head", head).
			Dur("waited", time.Since(moved)).Msg("rebuild: the replay has not moved; " + stalledBy(r))
	}
}

// replayWait paces waitCaughtUp: a line every tick, giving up after stall without progress
// (stall/tick waits in a row).
type replayWait struct{ tick, stall time.Duration }

// heldBackHint is the usual cause of a replay that does not move while serve and the log are up.
const heldBackHint = "events may be held back by an older open transaction on the database (docs/runbook.md, \"Verifying the ledger\")"

// logHead reads the global log through the port up to its committed head: the head's position
// and how many events the log holds up to it.
func logHead(ctx context.Context, log eventstore.Store, logger zerolog.Logger) (eventstore.Position, uint64, error) {
	head, err := log.Head(ctx)
	if err != nil {
		return head, 0, err
	}
	pos, n := eventstore.Start, uint64(0)
	// Events held back by an open transaction are waited for, and said so, as verify does: the
	// rebuild waited in silence.
	held := &heldBackNotice{LogReader: log, log: logger, every: heldBackEvery, task: "rebuild"}
	for {
		batch, err := eventstore.ReadUpTo(ctx, held, pos, head, 5000)
		if err != nil {
			return pos, n, fmt.Errorf("read the log to its head: %w", err)
		}
		if len(batch) == 0 {
			return pos, n, nil
		}
		n += uint64(len(batch))
		pos = batch[len(batch)-1].Position
	}
}
