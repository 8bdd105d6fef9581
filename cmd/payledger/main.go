// Command payledger is the one binary of the service: serve, migrate, and the operator tools.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/rs/zerolog"
)

func main() {
	signalled, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	// The first signal starts the orderly stop (serve drains its requests for up to 20 s); from
	// then on a signal has its default effect, so a second Ctrl-C ends the process at once
	// (NotifyContext kept catching them, and a slow client held the operator for the drain).
	// The signals are given back before the commands' context ends: whatever the stop does
	// (serve's "draining" line) comes after a second signal would end the process, never before.
	ctx, cancel := context.WithCancelCause(context.Background())
	context.AfterFunc(signalled, func() {
		stop()
		cancel(context.Cause(signalled))
	})
	environ = os.Environ
	os.Exit(run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr))
}

// run executes one command and returns the process exit status: 0, 1 when the command failed,
// 2 for a wrong command line (flag's convention; -h and --help print the usage and give 0).
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	if code, done := commandLine(args, stdout, stderr); done {
		return code
	}
	vars := newVarsRead(getenv) // what the configuration reads: the rest is not payledger's
	getenv = vars.get
	logTo, err := logFormat(getenv("LOG_FORMAT"))
	if err == nil {
		logTo, err = logLevel(logTo, getenv("LOG_LEVEL"))
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	// Every log line goes through the redactor: once the configuration is read, its secrets are
	// never shown, whoever quotes them (a library's error repeating ETH_RPC_URL with its key).
	secrets := &secretsOut{}
	base := logTo(redactor{stdout, secrets}).With().Timestamp().Logger()
	// Lines that belong to no request carry this process run's id as their correlation id.
	var b [8]byte
	_, _ = rand.Read(b[:])
	run := "run-" + hex.EncodeToString(b[:])
	log := base.With().Str("correlation_id", run).Logger()
	// The operator tools keep stdout for their answer: their logs go to stderr.
	toolLog := logTo(redactor{stderr, secrets}).With().Timestamp().Str("correlation_id", run).Logger()

	cfg, kept, err := loadPersistentConfig(getenv, rand.Reader)
	secrets.set(cfg)
	unknown := unknownVars(environ(), vars.names)
	if err != nil {
		fmt.Fprintln(stderr, err)
		if len(unknown) > 0 {
			fmt.Fprintf(stderr, "  (set, but not read by payledger: %s)\n", strings.Join(unknown, ", "))
		}
		return 2
	}
	startLog := log
	if args[0] != "serve" && args[0] != "migrate" {
		startLog = toolLog
	}
	sayAtStart(startLog, unknown, kept)
	err = dispatch(ctx, args, cfg, getenv, base, log, toolLog, stdout)
	if code, ok := reportUsage(err, stderr); ok {
		return code
	}
	if err != nil {
		// startLog: a tool's failure goes to stderr, never onto the stdout a script reads its
		// answer from (`keys create | tail -1` would take the error line for the key).
		startLog.Error().Err(err).Str("command", args[0]).Msg("failed")
		return 1
	}
	return 0
}

// dispatch runs the command args[0] names (commandLine has checked it is one): serve and
// migrate log to stdout, the operator tools to stderr (toolLog), keeping stdout for their answer.
func dispatch(ctx context.Context, args []string, cfg config, getenv func(string) string, base, log, toolLog zerolog.Logger, stdout io.Writer) error {
	switch args[0] {
	case "serve":
		tuneGC()
		return serve(ctx, cfg, base, log)
	case "migrate":
		return migrate(ctx, cfg, log)
	case "projections":
		return projectionsCommand(ctx, cfg, toolLog, args[1:], stdout)
	case "verify":
		return verifyCommand(ctx, cfg, toolLog, args[1:], stdout)
	case "receipts":
		return receiptsCommand(ctx, cfg, toolLog, args[1:], stdout)
	case "keys":
		// Logs go to stderr so that the key is alone on stdout's last line.
		return keysCommand(ctx, cfg, toolLog, args[1:], stdout)
	case "dev":
		return devCommand(ctx, cfg, getenv, toolLog, args[1:], stdout)
	case "devchain":
		return devchainCommand(ctx, cfg, toolLog, args[1:], stdout)
	case "listen":
		return listenCommand(ctx, cfg, getenv, args[1:], stdout)
	}
	return nil
}

// sayAtStart logs what the start found around the configuration: variables set that payledger
// does not read, and development's secrets generated now or read from its file.
func sayAtStart(log zerolog.Logger, unknown []string, kept devSecrets) {
	if len(unknown) > 0 {
		log.Warn().Strs("variables", unknown).Msg("environment variables payledger does not read are set (a typo?): they change nothing")
	}
	if len(kept.Generated) > 0 {
		log.Warn().Strs("generated", kept.Generated).Str("file", kept.Path).Msg("development mode: generated missing secrets and kept them for the next start (delete the file to rotate them)")
	}
	if len(kept.Reused) > 0 {
		log.Info().Strs("reused", kept.Reused).Str("file", kept.Path).Msg("development mode: secrets generated by an earlier start read from the file")
	}
}

// commandLine answers what needs no configuration: no command (the list, exit 2), help (exit 0),
// an unknown command, or arguments to a command that takes none (exit 2). done false: run it.
func commandLine(args []string, stdout, stderr io.Writer) (code int, done bool) {
	if len(args) == 0 {
		fmt.Fprint(stderr, listUsage())
		return 2, true
	}
	if args[0] == "help" || args[0] == "-h" || args[0] == "-help" || args[0] == "--help" {
		if c, ok := findCommand(strings.Join(args[1:], " ")); ok {
			fmt.Fprint(stdout, c.usage)
		} else {
			fmt.Fprint(stdout, listUsage())
		}
		return 0, true
	}
	c, ok := findCommand(args[0])
	if !ok {
		fmt.Fprintf(stderr, "unknown command %q\n\n%s", args[0], listUsage())
		return 2, true
	}
	if helpAsked(args[1:]) {
		fmt.Fprint(stdout, helpText(c, args))
		return 0, true
	}
	if (c.name == "serve" || c.name == "migrate") && len(args) > 1 {
		fmt.Fprintf(stderr, "payledger %s takes no arguments: %q\n\n%s", c.name, args[1:], c.usage)
		return 2, true
	}
	return 0, false
}

// logFormat returns how logs are written to a destination (LOG_FORMAT): JSON lines, or zerolog's
// console format (coloured level, time, message, fields); unset, console when the destination is
// a terminal and JSON otherwise.
func logFormat(format string) (func(io.Writer) zerolog.Logger, error) {
	console := func(w io.Writer, color bool) zerolog.Logger {
		return zerolog.New(zerolog.ConsoleWriter{Out: w, NoColor: !color, TimeFormat: time.RFC3339})
	}
	switch format {
	case "json":
		return func(w io.Writer) zerolog.Logger { return zerolog.New(w) }, nil
	case "console":
		return func(w io.Writer) zerolog.Logger { return console(w, terminal(w)) }, nil
	case "":
		return func(w io.Writer) zerolog.Logger {
			if terminal(w) {
				return console(w, true)
			}
			return zerolog.New(w)
		}, nil
	}
	return nil, fmt.Errorf("LOG_FORMAT must be json or console, not %q", format)
}

// logLevel makes logTo's loggers write level and above (LOG_LEVEL: debug, info, warn, error;
// default info, so that a development run shows what happened, not each step of the workers).
func logLevel(logTo func(io.Writer) zerolog.Logger, name string) (func(io.Writer) zerolog.Logger, error) {
	if name == "" {
		name = "info"
	}
	level, err := zerolog.ParseLevel(strings.ToLower(name))
	if err != nil || level < zerolog.DebugLevel || level > zerolog.ErrorLevel {
		return nil, fmt.Errorf("LOG_LEVEL must be debug, info, warn or error, not %q", name)
	}
	return func(w io.Writer) zerolog.Logger { return logTo(w).Level(level) }, nil
}

// terminal reports whether w is a terminal (a file, or a writer in front of one: redactor).
func terminal(w io.Writer) bool {
	f, ok := w.(interface{ Fd() uintptr })
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}
