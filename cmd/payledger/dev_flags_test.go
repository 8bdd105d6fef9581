package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDevMerchantRefusesAURLWithoutScheme: `dev merchant --base-url localhost:9090` (the README's
// other port, its scheme forgotten) is a wrong command line: exit 2 with what is wrong and the
// usage, no wallet file made. It was reported as a service that does not answer (exit 1).
func TestDevMerchantRefusesAURLWithoutScheme(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	vars := env(map[string]string{"DEV_DATA_DIR": dir, "DATABASE_URL": "postgres://nobody@127.0.0.1:1/none"})
	for _, base := range []string{"localhost:9090", "ftp://localhost:9090", "http://"} {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		var out, errOut bytes.Buffer
		code := run(ctx, []string{"dev", "merchant", "--base-url", base}, vars, &out, &errOut)
		cancel()
		if code != 2 || !strings.Contains(errOut.String(), "--base-url must be an http(s) URL") || !strings.Contains(errOut.String(), "usage:") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", base, code, out.String(), errOut.String())
		}
	}
	if _, err := os.Stat(filepath.Join(dir, devMerchantKeyFile)); !os.IsNotExist(err) {
		t.Fatalf("a wallet file was made: %v", err)
	}
}
