package main

import (
	"context"
	"io"
	"path/filepath"
	"testing"

	"github.com/rs/zerolog"
)

// serveWithDevMerchant starts serve without a chain (rate limits out of the way) and signs up a
// development merchant named shop through it, as `payledger dev merchant` does.
func serveWithDevMerchant(t *testing.T, shop string) (string, *devMerchant) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), ".data")
	base, _ := startServe(t, map[string]string{"DEV_DATA_DIR": dir, "JOURNAL_PATH": filepath.Join(dir, "journal.jsonl"), "DEVCHAIN": "off",
		"RATE_LIMIT_PER_MINUTE": "100000", "RATE_LIMIT_PUBLIC_PER_MINUTE": "100000"})
	m := &devMerchant{base: base, dir: dir, log: zerolog.Nop()}
	if err := m.run(context.Background(), shop, io.Discard); err != nil {
		t.Fatal(err)
	}
	return base, m
}
