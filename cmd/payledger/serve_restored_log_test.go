package main

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestServeRefusesALogPastEveryTransaction: positions are transaction ids, so a log restored
// into another cluster (pg_dump and restore: the new server's ids start lower) has its events
// past every transaction the server will start; serve's new events would sort before them,
// behind the projectors' checkpoints, and be lost to the read models. Serve refuses to start on
// such a log, naming both ids and the runbook (verify and rebuild report it too). The deadline
// only bounds the old behaviour, which served on.
func TestServeRefusesALogPastEveryTransaction(t *testing.T) {
	t.Parallel()
	l := newCheckpointLedger(t)
	l.exec(t, `UPDATE events SET tx_id = tx_id + 4611686018427387904`) // every event, as a restore leaves them
	vars, _ := unstartedServe(t)
	vars["DATABASE_URL"] = l.vars["DATABASE_URL"]
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out := &syncBuffer{}
	code := run(ctx, []string{"serve"}, env(vars), out, out)
	if code != 1 || !strings.Contains(out.String(), "the event log's head is past every transaction this database has started") ||
		!strings.Contains(out.String(), "docs/runbook.md") || strings.Contains(out.String(), `"serving"`) {
		t.Fatalf("serve on a log past every transaction: exit %d\n%s", code, out.String())
	}
}
