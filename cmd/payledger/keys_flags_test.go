package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestWrongFlagValuesAreUsageErrorsBeforeAnythingOpens: `keys create` without --scopes, and
// `devchain pay` with a --to that is no address or an --amount that is no positive integer, print
// what is wrong and the usage and exit 2 before the database or the node is opened. keys create
// opened and migrated the database first and then failed (exit 1); devchain pay failed with 1.
func TestWrongFlagValuesAreUsageErrorsBeforeAnythingOpens(t *testing.T) {
	t.Parallel()
	// Nothing answers at these addresses and the context is over: a command that goes on to work
	// fails with 1, not 2.
	vars := env(map[string]string{"DATABASE_URL": "postgres://nobody@127.0.0.1:1/none", "EMBEDDED_POSTGRES": "off",
		"DEV_DATA_DIR": t.TempDir(), "ETH_RPC_URL": "http://127.0.0.1:1"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	wallet := "0x" + strings.Repeat("cd", 20)
	key := strings.Repeat("ab", 32)
	for _, tc := range []struct {
		args []string
		says string
	}{
		{[]string{"keys", "create", "--wallet", wallet}, "needs --scopes"},
		{[]string{"keys", "create", "--wallet", wallet, "--scopes", ""}, "needs --scopes"},
		{[]string{"devchain", "pay", "--key", key, "--to", "0x12", "--amount", "1"}, `--to "0x12" is not an address`},
		{[]string{"devchain", "pay", "--key", key, "--to", wallet, "--amount", "1.5"}, "is not a positive integer"},
		{[]string{"devchain", "pay", "--key", key, "--to", wallet, "--amount", "-3"}, "is not a positive integer"},
	} {
		var out, errOut bytes.Buffer
		code := run(ctx, tc.args, vars, &out, &errOut)
		if code != 2 || !strings.Contains(errOut.String(), tc.says) || !strings.Contains(errOut.String(), "usage:") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", tc.args, code, out.String(), errOut.String())
		}
	}
}
