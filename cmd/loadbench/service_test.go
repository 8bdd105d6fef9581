package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/payledger/payledger/migrations/pgtest"
)

// TestServices starts this checkout's payledger, built once for its subtests, as loadbench does.
func TestServices(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the service")
	}
	bin := filepath.Join(t.TempDir(), "payledger")
	if err := buildPayledger("../..", bin); err != nil {
		t.Fatal(err)
	}
	server := pgtest.Server()
	t.Run("SideBySideWithDataFoldersOfTheirOwn", func(t *testing.T) { servicesSideBySide(t, bin, server) })
	t.Run("ThatEndsAtStartSaysWhy", func(t *testing.T) { serviceEndedAtStart(t, bin, server) })
}

// Two services of one binary run side by side (the A/B's pairs), each signed up with a key made
// by `keys create` beside it, and neither writes into the working directory's .data, which is
// the developer's `make run`'s. Before each had a folder of its own, the second could not take
// the journal's lock and loadbench said only "service did not start".
func servicesSideBySide(t *testing.T, bin, server string) {
	if _, err := os.Stat(".data"); err == nil {
		t.Skip("this directory already has a .data folder")
	}
	ctx := context.Background()
	var dirs []string
	for range 2 {
		l, err := launch(ctx, server, bin, 1)
		if err != nil {
			t.Fatalf("service %d of 2: %v", len(dirs)+1, err)
		}
		defer l.stop()
		if _, err := os.Stat(filepath.Join(l.svc.dir, "journal.jsonl.lock")); err != nil {
			t.Errorf("the service's journal is not in its own folder: %v", err)
		}
		dirs = append(dirs, l.svc.dir)
	}
	if dirs[0] == dirs[1] {
		t.Fatalf("both services use %s", dirs[0])
	}
	if _, err := os.Stat(".data"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a service wrote into the working directory's .data (%v)", err)
	}
}

// A service that ends at its start is reported with what it said, not after 30 s of waiting.
func serviceEndedAtStart(t *testing.T, bin, server string) {
	t.Setenv("LOG_LEVEL", "loud")
	admin, _ := crypto.GenerateKey()
	svc, err := startService(bin, server, admin)
	if err != nil {
		t.Fatal(err)
	}
	err = svc.waitUp()
	svc.stop()
	if err == nil || !strings.Contains(err.Error(), `LOG_LEVEL must be debug, info, warn or error, not "loud"`) {
		t.Fatalf("waitUp: %v, want the service's own reason", err)
	}
	if _, err := os.Stat(svc.dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the service's folder %s outlived its stop (%v)", svc.dir, err)
	}
}
