package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/payledger/payledger/migrations/pgtest"
)

// TestToolFailureIsOnStderrNotStdout: an operator tool that fails says so on stderr and leaves
// stdout, its answer, empty: `payledger keys create ... | tail -1` must not take the failure's
// log line for a key, and `payledger verify > report` must not bury the reason in the report.
func TestToolFailureIsOnStderrNotStdout(t *testing.T) {
	t.Parallel()
	vars := env(map[string]string{"DATABASE_URL": pgtest.URL(t), "EMBEDDED_POSTGRES": "off", "DEV_DATA_DIR": t.TempDir()})
	wallet := "0x" + strings.Repeat("cd", 20)
	for _, args := range [][]string{
		{"keys", "create", "--wallet", wallet, "--scopes", "root"},
		{"verify", "--stream", "no-such-stream"},
		{"receipts", "history", "no-such-receipt"},
	} {
		var out, errOut bytes.Buffer
		code := run(context.Background(), args, vars, &out, &errOut)
		if code != 1 || out.Len() != 0 || !strings.Contains(errOut.String(), `"failed"`) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, out.String(), errOut.String())
		}
	}
}

// TestStrayOrMissingArgumentsAreUsageErrors: a command line with an argument the command does
// not take, or without a flag it needs, prints the usage on stderr and exits 2 before anything
// is opened. `verify s-1` used to walk the whole log and answer ok for it, and `verify s-1
// --stream s-1` ignored the flag; `devchain --accounts 0` ran a chain with 3.
func TestStrayOrMissingArgumentsAreUsageErrors(t *testing.T) {
	t.Parallel()
	// Nothing answers at these addresses; the context is over: a command that goes on to work
	// fails with 1, not 2.
	vars := env(map[string]string{"DATABASE_URL": "postgres://nobody@127.0.0.1:1/none", "EMBEDDED_POSTGRES": "off",
		"DEV_DATA_DIR": t.TempDir(), "PUBLIC_BASE_URL": "http://127.0.0.1:1"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	wallet := "0x" + strings.Repeat("cd", 20)
	key := strings.Repeat("ab", 32)
	for _, args := range [][]string{
		{"verify", "s-1"},
		{"verify", "s-1", "--stream", "s-1"},
		{"keys", "create", "--scopes", "orders:create"},
		{"keys", "create", "--wallet", wallet, "--scopes", "orders:create", "extra"},
		{"keys", "revoke", "--wallet", wallet},
		{"keys", "revoke", "--wallet", wallet, "--id", "not-a-uuid"},
		{"dev", "merchant", "extra"},
		{"devchain", "pay", "r_1", "--key", key, "extra"},
		{"devchain", "pay", "--key", key, "--to", wallet, "--amount", "1", "extra"},
		{"devchain", "--accounts", "0"},
		{"devchain", "--block-interval", "-1s"},
		{"devchain", "--port", "70000"},
	} {
		var out, errOut bytes.Buffer
		code := run(ctx, args, vars, &out, &errOut)
		if code != 2 || !strings.Contains(errOut.String(), "usage:") || strings.Contains(out.String()+errOut.String(), `"failed"`) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, out.String(), errOut.String())
		}
	}
}
