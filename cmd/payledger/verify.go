package main

import (
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
)

// errLedgerBroken makes `verify` exit non-zero.
var errLedgerBroken = errors.New("ledger verification failed")

// verifyCommand walks the hash chains of every stream (or one) and reports the first broken link.
func verifyCommand(ctx context.Context, cfg config, log zerolog.Logger, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("verify", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	stream := fs.String("stream", "", "verify one stream only")
	if err := fs.Parse(args); err != nil {
		return badUsage(err, verifyUsage)
	}
	if fs.NArg() > 0 {
		// `verify <id>` (or `verify <id> --stream x`, where flag stops at the id) would walk the
		// whole log instead and answer for streams the operator did not ask about.
		return badUsage(fmt.Sprintf("unexpected arguments %q (one stream: --stream id)", fs.Args()), verifyUsage)
	}
	_, store, closeLedger, err := openLedger(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer closeLedger()
	return verifyLedger(ctx, store, *stream, log, stdout)
}

// verifyLedger checks the hash chains of one stream, or of the whole log, reading only through the
// event-store port (so it works on every adapter), and prints the verdict.
func verifyLedger(ctx context.Context, store eventstore.Store, stream string, log zerolog.Logger, stdout io.Writer) error {
	var brk *eventstore.ChainBreak
	var checked uint64
	if stream != "" {
		events, err := store.ReadStream(ctx, stream, 1, 1<<30)
		if err != nil {
			return err
		}
		if len(events) == 0 {
			return fmt.Errorf("stream %q has no events", stream)
		}
		brk, checked = eventstore.VerifyChain(events), uint64(len(events))
	} else {
		// The walk ends at the head committed when it starts; an event appended meanwhile is
		// checked by the next run.
		head, err := store.Head(ctx)
		if err != nil {
			return err
		}
		if brk, checked, err = eventstore.VerifyLog(ctx, store, head, progressReporter(log, "verify")); err != nil {
			return err
		}
	}
	if brk != nil {
		fmt.Fprintf(stdout, "BROKEN: stream %s version %d position %s: %s (%d events checked before it)\n", brk.StreamID, brk.Version, brk.Position, brk.Reason, checked)
		return errLedgerBroken
	}
	fmt.Fprintf(stdout, "ok: %d events, every hash chain holds\n", checked)
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
