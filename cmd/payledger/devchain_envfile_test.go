package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/payledger/payledger/internal/wait"
)

// TestDevchainSaysWhenItCannotWriteItsEnvFile: a development chain that cannot write
// DEVCHAIN_ENV_FILE (here a path under a regular file) says so, naming the file and what to do;
// it runs anyway. It said nothing, and `devchain pay <receiptId>` then read an older chain's file,
// or none ("is the development chain running?") while this one ran.
func TestDevchainSaysWhenItCannotWriteItsEnvFile(t *testing.T) {
	blocker := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	unwritable := filepath.Join(blocker, "devchain.env")
	t.Setenv("DEVCHAIN_ENV_FILE", unwritable)
	ctx, cancel := context.WithCancel(context.Background())
	var out, errOut devchainOut
	exit := make(chan int, 1)
	go func() {
		exit <- run(ctx, []string{"devchain", "--port", "0", "--block-interval", "500ms"}, noEnv, &out, &errOut)
	}()
	defer func() { cancel(); <-exit }()
	readDevchainBanner(t, &out, &errOut)
	wait.Until(t, "the warning", 10*time.Second, func() bool { return strings.Contains(errOut.String(), "could not be written") })
	for _, want := range []string{unwritable, "set DEVCHAIN_ENV_FILE to a file you can write"} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut.String())
		}
	}
	if strings.Contains(out.String(), "# written to") {
		t.Errorf("the banner says the file was written:\n%s", out.String())
	}
}
