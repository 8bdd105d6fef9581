package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
)

// A command line as Go's flag package treats one: -h or --help prints the command's usage on
// standard output and exits 0; a wrong flag or argument prints what is wrong and the usage on
// standard error and exits 2.

// command is one subcommand: its one-line summary (the list `payledger` prints) and its usage.
type command struct {
	name, summary, usage string
}

// subcommands is every subcommand, in the order the list shows them.
func subcommands() []command {
	return []command{
		{"serve", "run the HTTP service (creates the database if missing and applies migrations)",
			"usage:\n  payledger serve\n      run the HTTP service; configuration comes from the environment (README.md)\n"},
		{"migrate", "create the database if missing, apply migrations, then exit",
			"usage:\n  payledger migrate\n      create the database if missing and apply the migrations, then exit\n"},
		{"keys", "create or revoke subscription keys", keysUsage},
		{"projections", "rebuild a projection's read models from the whole log", projectionsUsage},
		{"verify", "walk every stream's hash chain and report the first broken link", verifyUsage},
		{"receipts", "print a receipt's event history and check its hash chain", receiptsUsage},
		{"dev", "development only: a signed-in merchant with a shop, items and a key", devUsage},
		{"devchain", "development only: run a local chain, or pay a receipt on it", devchainUsage},
		{"listen", "forward the merchant's events to a local URL, signed as a webhook endpoint", listenUsage},
	}
}

// listUsage is what `payledger` alone prints: the subcommands, one line each.
func listUsage() string {
	var b strings.Builder
	b.WriteString("usage: payledger <command> [flags]   (payledger <command> --help for its flags)\n\ncommands:\n")
	for _, c := range subcommands() {
		fmt.Fprintf(&b, "  %-12s %s\n", c.name, c.summary)
	}
	b.WriteString("\nConfiguration comes from the environment; see README.md.\n")
	return b.String()
}

// findCommand returns the subcommand called name.
func findCommand(name string) (command, bool) {
	for _, c := range subcommands() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// helpAsked reports whether args (a subcommand's) ask for help before any "--".
func helpAsked(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-h", "-help", "--help":
			return true
		}
	}
	return false
}

// helpText is the usage that -h prints for args (the whole command line).
func helpText(c command, args []string) string {
	if c.name == "devchain" && len(args) > 2 && args[1] == "pay" && !strings.HasPrefix(args[2], "-") {
		return devchainPayReceiptUsage
	}
	return c.usage
}

// usageError is a wrong command line: what is wrong, and the usage to print with it (exit 2).
type usageError struct {
	problem, usage string
}

func (e *usageError) Error() string { return e.problem }

// badUsage is a usageError for problem (an error or a text).
func badUsage(problem any, usage string) error {
	return &usageError{problem: fmt.Sprint(problem), usage: usage}
}

// reportUsage prints a usageError in err to stderr and returns 2; ok false when err is none.
func reportUsage(err error, stderr io.Writer) (int, bool) {
	var u *usageError
	if !errors.As(err, &u) {
		return 0, false
	}
	fmt.Fprintf(stderr, "%s\n\n%s", u.problem, u.usage)
	return 2, true
}

const projectionsUsage = `usage:
  payledger projections rebuild [name|--all]
      empty a projection's read models (receipts, users, subscriptions; all without a name) and
      replay the whole log into them, swapping them in once caught up
`

const verifyUsage = `usage:
  payledger verify [--stream id]
      walk every stream's hash chain (or one stream's); report the first broken link (exit 1 if any)
  payledger verify [--checkpoint FILE] [--checkpoint-out FILE]
      --checkpoint: also check that every stream FILE recorded still reaches its version with its
      hash (catches deleted or rewritten events); --checkpoint-out: write a checkpoint of the log
      once it verified. Both sign with VERIFY_KEY (HMAC-SHA256, 32+ bytes, kept out of the database)
`

const receiptsUsage = `usage:
  payledger receipts history <receipt id>
      print a receipt's event history and check its hash chain (exit 1 if broken)
`
