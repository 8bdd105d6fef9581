package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
)

// TestVerifyReportsAHeadPastEveryTransaction: an event given a position past every transaction
// the server has started (a row written outside the service with a forged tx_id, or a log
// restored into another cluster, whose transaction ids start lower) is never read by the walk,
// which ends only at the log's head: verify waited for it for ever, logging that an older
// transaction was still open. It now reports the head as broken (exit 1) without walking. The
// deadline only bounds the old behaviour's wait; nothing here is timed.
func TestVerifyReportsAHeadPastEveryTransaction(t *testing.T) {
	t.Parallel()
	l := newCheckpointLedger(t)
	l.exec(t, `UPDATE events SET tx_id = 4611686018427387904 WHERE stream_id = 's-c'`)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var out, errOut bytes.Buffer
	code := run(ctx, []string{"verify"}, env(l.vars), &out, &errOut)
	if code != 1 || !strings.Contains(out.String(), "BROKEN: the log's head 4611686018427387904/") ||
		!strings.Contains(out.String(), "which this database has not started") {
		t.Fatalf("verify of a log whose head is past every transaction: exit %d\n%s%s", code, out.String(), errOut.String())
	}
	// The whole log walks as before once the row is back in place.
	l.exec(t, `UPDATE events SET tx_id = pg_current_xact_id()::text::bigint WHERE stream_id = 's-c'`)
	if code, out := l.verify(t); code != 0 || !strings.Contains(out, "ok: 6 events") {
		t.Fatalf("verify after the row was put back: exit %d %s", code, out)
	}
}

// TestRebuildReportsAHeadPastEveryTransaction: `projections rebuild` reads the log to its head
// before it resets anything, and waited for such a head for ever, in silence; it now refuses as
// verify reports it (exit 1), with nothing reset.
func TestRebuildReportsAHeadPastEveryTransaction(t *testing.T) {
	t.Parallel()
	l := newCheckpointLedger(t)
	l.exec(t, `UPDATE events SET tx_id = 4611686018427387904 WHERE stream_id = 's-c'`)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var out, errOut bytes.Buffer
	code := run(ctx, []string{"projections", "rebuild", "users"}, env(l.vars), &out, &errOut)
	if all := out.String() + errOut.String(); code != 1 || !strings.Contains(all, "which this database has not started") {
		t.Fatalf("rebuild of a log whose head is past every transaction: exit %d\n%s", code, all)
	}
}
