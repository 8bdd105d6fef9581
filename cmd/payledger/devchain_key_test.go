package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestDevchainPayMalformedKeyIsAUsageError: `devchain pay --key` with a value that is no private
// key is a wrong command line (usage, exit 2), as a wrong --to or --amount is, and the message
// does not repeat the value (a key). It failed with exit 1 once the flags were read.
func TestDevchainPayMalformedKeyIsAUsageError(t *testing.T) {
	t.Parallel()
	vars := env(map[string]string{"DEV_DATA_DIR": t.TempDir(), "ETH_RPC_URL": "http://127.0.0.1:1", "DATABASE_URL": "postgres://nobody@127.0.0.1:1/none"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // a command that went on to work fails with 1
	wallet := "0x" + strings.Repeat("cd", 20)
	// A short value that no log line's random id or temporary path can hold by chance ("11" was
	// found in a run's correlation id, which failed the check below once).
	for _, key := range []string{"1z1z", strings.Repeat("zq", 32), "0x" + strings.Repeat("ab", 31) + "secret"} {
		var out, errOut bytes.Buffer
		code := run(ctx, []string{"devchain", "pay", "--key", key, "--to", wallet, "--amount", "1"}, vars, &out, &errOut)
		if code != 2 || !strings.Contains(errOut.String(), "--key must be a private key of 64 hex digits") || !strings.Contains(errOut.String(), "usage:") {
			t.Errorf("--key %q: exit %d, stdout %q, stderr %q", key, code, out.String(), errOut.String())
		}
		if strings.Contains(out.String()+errOut.String(), key) {
			t.Errorf("--key %q: the value was printed", key)
		}
	}
}
