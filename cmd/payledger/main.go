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
	"syscall"

	"github.com/rs/zerolog"
)

const usage = `usage: payledger <command>

commands:
  serve     run the HTTP service (creates the database if missing and applies migrations)
  migrate   create the database if missing and apply migrations, then exit
  keys      create or revoke subscription keys (payledger keys for usage)
  projections rebuild [name|--all]
            empty a projection's read models and replay the whole log into them
  verify [--stream id]
            walk every stream's hash chain; report the first broken link (exit 1 if any)
  receipts history <id>
            print a receipt's event history and check its hash chain (exit 1 if broken)

Configuration comes from the environment; see README.md.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr))
}

// run executes one command and returns the process exit status.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	base := zerolog.New(stdout).With().Timestamp().Logger()
	// Lines that belong to no request carry this process run's id as their correlation id.
	var b [8]byte
	_, _ = rand.Read(b[:])
	log := base.With().Str("correlation_id", "run-"+hex.EncodeToString(b[:])).Logger()

	cfg, generated, err := loadConfig(getenv, rand.Reader)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	if len(generated) > 0 {
		log.Warn().Strs("generated", generated).Msg("development mode: generated missing secrets for this run only; set them to keep sessions and encrypted data across restarts")
	}
	switch args[0] {
	case "serve":
		tuneGC()
		err = serve(ctx, cfg, base, log)
	case "migrate":
		err = migrate(ctx, cfg, log)
	case "projections":
		err = projectionsCommand(ctx, cfg, log.Output(stderr), args[1:], stdout)
	case "verify":
		err = verifyCommand(ctx, cfg, log.Output(stderr), args[1:], stdout)
	case "receipts":
		err = receiptsCommand(ctx, cfg, log.Output(stderr), args[1:], stdout)
	case "keys":
		// Logs go to stderr so that the key is alone on stdout's last line.
		err = keysCommand(ctx, cfg, log.Output(stderr), args[1:], stdout)
	case "devchain":
		err = devchainCommand(ctx, cfg, log.Output(stderr), args[1:], stdout)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "unknown command %q\n\n%s", args[0], usage)
		return 2
	}
	if err != nil {
		log.Error().Err(err).Str("command", args[0]).Msg("failed")
		return 1
	}
	return 0
}
