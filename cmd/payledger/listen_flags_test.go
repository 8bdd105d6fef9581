package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
)

// TestListenRefusesAURLWithoutScheme: `listen --forward-to localhost:3000/webhooks` (the form other
// tools' forwarders take) or a --base-url without http(s) is a wrong command line, exit 2 with
// what is wrong. Listen ran with it and retried a request that could never be made each second,
// for ever, forwarding nothing.
func TestListenRefusesAURLWithoutScheme(t *testing.T) {
	t.Parallel()
	vars := env(map[string]string{"DEV_DATA_DIR": t.TempDir(), "DATABASE_URL": "postgres://nobody@127.0.0.1:1/none"})
	for _, args := range [][]string{
		{"--forward-to", "localhost:3000/webhooks"},
		{"--forward-to", "ftp://localhost/webhooks"},
		{"--forward-to", "http://"},
		{"--forward-to", "http://localhost:3000/webhooks", "--base-url", "localhost:8080"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		var out, errOut bytes.Buffer
		code := run(ctx, append([]string{"listen", "--api-key", "plk_test"}, args...), vars, &out, &errOut)
		cancel()
		if code != 2 || !strings.Contains(errOut.String(), "must be an http(s) URL") || !strings.Contains(errOut.String(), "usage:") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, out.String(), errOut.String())
		}
	}
}
