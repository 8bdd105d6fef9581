package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/payledger/payledger/migrations/pgtest"
)

// TestSecondServeOnOneJournalRefuses: two serve instances given one JOURNAL_PATH used to share
// the file (the second cut what it took for a torn tail, both drained and rewrote it). The
// second now refuses to start, exit 1, naming JOURNAL_PATH; once the first stops, serve starts
// on the same journal again (its lock went with it).
func TestSecondServeOnOneJournalRefuses(t *testing.T) {
	t.Parallel()
	vars := map[string]string{"DATABASE_URL": pgtest.URL(t), "JOURNAL_PATH": filepath.Join(t.TempDir(), "journal.jsonl"), "DEVCHAIN": "off"}
	_, _, stop := startServeStoppable(t, vars)
	defer stop()

	second := map[string]string{"HTTP_ADDR": fmt.Sprintf("127.0.0.1:%d", freePort(t)), "EMBEDDED_POSTGRES": "off"}
	for k, v := range vars {
		second[k] = v
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out := &syncBuffer{}
	if code := run(ctx, []string{"serve"}, env(second), out, out); code != 1 || !strings.Contains(out.String(), "JOURNAL_PATH") {
		t.Fatalf("a second serve on the journal in use: exit %d\n%s", code, tail(out.String(), 3000))
	}
	stop()
	_, _, stopAgain := startServeStoppable(t, vars) // a restart after the first stopped
	stopAgain()
}
