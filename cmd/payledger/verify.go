package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/postgres"
)

// errLedgerBroken makes `verify` exit non-zero.
var errLedgerBroken = errors.New("ledger verification failed")

// errCheckpointRefused: the checkpoint given is not one VERIFY_KEY signed (exit 1, nothing checked).
var errCheckpointRefused = errors.New("checkpoint refused")

// maxMissingShown bounds the lines of a checkpoint's findings (a checkpoint of another database
// would list every stream).
const maxMissingShown = 20

// verifyOptions are verify's flags: one stream, or the whole log against a checkpoint and/or
// writing one, signed with key (VERIFY_KEY).
type verifyOptions struct {
	stream        string
	checkpoint    string
	checkpointOut string
	key           []byte
	now           func() time.Time
	heldBackEvery time.Duration // 0: heldBackEvery
	// nextTx, on PostgreSQL, reads the next transaction id the server will assign (positions are
	// transaction ids there); nil on other adapters.
	nextTx func(ctx context.Context) (uint64, error)
}

// verifyCommand walks the hash chains of every stream (or one) and reports the first broken link;
// with --checkpoint it also checks every stream a signed checkpoint recorded, and with
// --checkpoint-out it writes one once the log verified.
func verifyCommand(ctx context.Context, cfg config, log zerolog.Logger, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("verify", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	opts := verifyOptions{key: cfg.VerifyKey, now: time.Now}
	fs.StringVar(&opts.stream, "stream", "", "verify one stream only")
	fs.StringVar(&opts.checkpoint, "checkpoint", "", "also check every stream this signed checkpoint recorded")
	fs.StringVar(&opts.checkpointOut, "checkpoint-out", "", "write a signed checkpoint of the verified log to this file")
	if err := fs.Parse(args); err != nil {
		return badUsage(err, verifyUsage)
	}
	if fs.NArg() > 0 {
		// `verify <id>` (or `verify <id> --stream x`, where flag stops at the id) would walk the
		// whole log instead and answer for streams the operator did not ask about.
		return badUsage(fmt.Sprintf("unexpected arguments %q (one stream: --stream id)", fs.Args()), verifyUsage)
	}
	// A flag given an empty value (a script's unset variable: --checkpoint "$CHECKPOINT") read as
	// a flag not given: the daily check against the signed checkpoint became a plain walk, which
	// cannot see deleted events, and answered ok with exit 0.
	var empty []string
	fs.Visit(func(f *flag.Flag) {
		if f.Value.String() == "" {
			empty = append(empty, "--"+f.Name)
		}
	})
	if len(empty) > 0 {
		return badUsage(fmt.Sprintf("%s given an empty value", empty[0]), verifyUsage)
	}
	if opts.stream != "" && (opts.checkpoint != "" || opts.checkpointOut != "") {
		return badUsage("--checkpoint and --checkpoint-out cover the whole log: not with --stream", verifyUsage)
	}
	if (opts.checkpoint != "" || opts.checkpointOut != "") && len(opts.key) < eventstore.MinCheckpointKey {
		return fmt.Errorf("--checkpoint and --checkpoint-out need VERIFY_KEY, at least %d bytes (e.g. openssl rand -hex 32), kept out of the database", eventstore.MinCheckpointKey)
	}
	_, store, closeLedger, err := openToolLedger(ctx, cfg, log, readLedger)
	if err != nil {
		return err
	}
	defer closeLedger()
	opts.nextTx = nextTxOf(store)
	return verifyWith(ctx, store, opts, log, stdout)
}

// verifyLedger checks the hash chains of one stream, or of the whole log, reading only through the
// event-store port (so it works on every adapter), and prints the verdict.
func verifyLedger(ctx context.Context, store eventstore.Store, stream string, log zerolog.Logger, stdout io.Writer) error {
	return verifyWith(ctx, store, verifyOptions{stream: stream}, log, stdout)
}

// verifyWith is verifyLedger with verify's options.
func verifyWith(ctx context.Context, store eventstore.Store, o verifyOptions, log zerolog.Logger, stdout io.Writer) error {
	if o.stream != "" {
		return verifyStream(ctx, store, o.stream, stdout)
	}
	cp, err := checkpointIn(o, stdout)
	if err != nil {
		return err
	}
	var out *checkpointOut
	if o.checkpointOut != "" {
		// Before the walk, which may take hours: a path that cannot be written fails now.
		if out, err = createCheckpointFile(o.checkpointOut); err != nil {
			return err
		}
		defer out.discard()
	}
	// The walk ends at the head committed when it starts; an event appended meanwhile is
	// checked by the next run.
	head, err := store.Head(ctx)
	if err != nil {
		return err
	}
	if err := headStarted(ctx, o, head, stdout); err != nil {
		return err
	}
	var check func(eventstore.RecordedEvent) *eventstore.ChainBreak
	if cp != nil {
		check = cp.CheckEvent
	}
	held := &heldBackNotice{LogReader: store, log: log, every: cmp.Or(o.heldBackEvery, heldBackEvery)}
	brk, walk, err := eventstore.WalkLog(ctx, held, head, progressReporter(log, "verify"), check)
	if err != nil {
		return err
	}
	if err := verdictAgainst(stdout, brk, walk, head, cp, o.checkpoint); err != nil {
		return err
	}
	if out == nil {
		return nil
	}
	c := eventstore.Checkpoint{CreatedAt: o.now(), Head: head, Events: walk.Events, Streams: walk.Heads}
	if err := out.write(c, o.key); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "checkpoint written to %s: %d streams, %d events, head %s\n", o.checkpointOut, len(c.Streams), c.Events, head)
	return nil
}

// verifyStream checks the hash chain of one stream's events.
func verifyStream(ctx context.Context, store eventstore.Store, stream string, stdout io.Writer) error {
	events, err := store.ReadStream(ctx, stream, 1, 1<<30)
	if err != nil {
		return err
	}
	if len(events) == 0 {
		return fmt.Errorf("stream %q has no events", stream)
	}
	return verdict(stdout, eventstore.VerifyChain(events), uint64(len(events)))
}

// checkpointIn reads the signed checkpoint the walk starts from (-checkpoint), if one is named: a
// bad signature or format is REFUSED on stdout (errCheckpointRefused), not a plain failure.
func checkpointIn(o verifyOptions, stdout io.Writer) (*eventstore.Checkpoint, error) {
	if o.checkpoint == "" {
		return nil, nil
	}
	c, err := readCheckpointFile(o.checkpoint, o.key)
	if errors.Is(err, eventstore.ErrCheckpointSignature) || errors.Is(err, eventstore.ErrCheckpointFormat) {
		fmt.Fprintf(stdout, "REFUSED: checkpoint %s: %v\n", o.checkpoint, err)
		return nil, errCheckpointRefused
	}
	if err != nil {
		return nil, err
	}
	return &c, nil
}

// nextTxOf reads, when the event store is PostgreSQL (positions are transaction ids), the next
// transaction id the server will assign; nil on other adapters.
func nextTxOf(store eventstore.Store) func(ctx context.Context) (uint64, error) {
	if pg, ok := store.(*postgres.Store); ok {
		return pg.NextTransaction
	}
	return nil
}

// headStarted checks, on PostgreSQL, that the log's head names a transaction the server has
// started: a row given a position past them (written outside the service with a forged tx_id,
// or a log restored into another cluster, whose transaction ids start lower) is never read by
// the walk, which stops at its first empty read only at the head, so verify waited for it for
// ever, saying an older transaction was still open. errLedgerBroken when it does not.
func headStarted(ctx context.Context, o verifyOptions, head eventstore.Position, stdout io.Writer) error {
	if o.nextTx == nil || head == eventstore.Start {
		return nil
	}
	next, err := o.nextTx(ctx)
	if err != nil {
		return fmt.Errorf("read the next transaction id: %w", err)
	}
	if head.Commit < next {
		return nil
	}
	fmt.Fprintf(stdout, "BROKEN: the log's head %s names transaction %d, which this database has not started (its next is %d): "+
		"events were written with a forged position, or the log was restored from another database cluster\n", head, head.Commit, next)
	return errLedgerBroken
}

// verdict prints the result of a chain check: the first broken link (errLedgerBroken) or ok.
func verdict(stdout io.Writer, brk *eventstore.ChainBreak, checked uint64) error {
	if brk != nil {
		fmt.Fprintf(stdout, "BROKEN: stream %s version %d position %s: %s (%d events checked before it)\n", brk.StreamID, brk.Version, brk.Position, brk.Reason, checked)
		return errLedgerBroken
	}
	fmt.Fprintf(stdout, "ok: %d events, every hash chain holds\n", checked)
	return nil
}

// verdictAgainst is verdict for a walk of the log, then what the checkpoint cp (when given)
// recorded and the walk did not find.
func verdictAgainst(stdout io.Writer, brk *eventstore.ChainBreak, walk eventstore.Walk, head eventstore.Position, cp *eventstore.Checkpoint, file string) error {
	if cp == nil || brk != nil {
		return verdict(stdout, brk, walk.Events)
	}
	missing := cp.Missing(walk, head)
	for i, m := range missing {
		if i == maxMissingShown {
			fmt.Fprintf(stdout, "BROKEN: ... and %d more against the checkpoint\n", len(missing)-i)
			break
		}
		fmt.Fprintf(stdout, "BROKEN: %s\n", m)
	}
	if len(missing) > 0 {
		return errLedgerBroken
	}
	fmt.Fprintf(stdout, "ok: %d events, every hash chain holds; checkpoint %s of %s holds (%d streams, %d events)\n",
		walk.Events, file, cp.CreatedAt.Format(time.RFC3339), len(cp.Streams), cp.Events)
	return nil
}

// progressReporter shows events done / total, events/s and the time left, at most every second:
// as a line that rewrites itself when stderr is a terminal, as log lines otherwise.
func progressReporter(log zerolog.Logger, what string) eventstore.Progress {
	var last time.Time
	tty := isatty.IsTerminal(os.Stderr.Fd())
	return func(done, total uint64, elapsed time.Duration) {
		if time.Since(last) < time.Second && done != total {
			return
		}
		last = time.Now()
		rate := float64(done) / max(elapsed.Seconds(), 1e-3)
		if tty {
			eta := "?"
			if total > done && rate > 0 {
				eta = time.Duration(float64(total-done) / rate * float64(time.Second)).Round(time.Second).String()
			} else if total <= done {
				eta = "0s"
			}
			fmt.Fprintf(os.Stderr, "\r%s: %d / %d events, %.0f events/s, ETA %s   ", what, done, total, rate, eta)
			if done >= total && total > 0 {
				fmt.Fprintln(os.Stderr)
			}
			return
		}
		ev := log.Info().Str("task", what).Uint64("done", done).Uint64("total", total).Float64("events_per_s", rate)
		if total > done && rate > 0 {
			ev = ev.Dur("eta", time.Duration(float64(total-done)/rate*float64(time.Second)))
		}
		ev.Msg("progress")
	}
}
