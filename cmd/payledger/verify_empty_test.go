package main

import (
	"strings"
	"testing"
)

// TestVerifyRefusesAFlagGivenAnEmptyValue: the daily check `verify --checkpoint "$CP"
// --checkpoint-out "$CP"` with the variable unset ran as a plain walk, which cannot see deleted
// events, and answered ok with exit 0 though the last event of a stream was gone. A flag given an
// empty value is now a wrong command line (exit 2, nothing checked), --stream too (it walked the
// whole log and answered for every stream).
func TestVerifyRefusesAFlagGivenAnEmptyValue(t *testing.T) {
	t.Parallel()
	l := newCheckpointLedger(t)
	l.exec(t, `DELETE FROM events WHERE stream_id = 's-a' AND version = 3`)
	for _, args := range [][]string{
		{"--checkpoint", "", "--checkpoint-out", ""},
		{"--checkpoint="},
		{"--stream", ""},
	} {
		code, out := l.verify(t, args...)
		if code != 2 || strings.Contains(out, "ok:") || !strings.Contains(out, "given an empty value") {
			t.Errorf("verify %q: exit %d %s", args, code, out)
		}
	}
	if code, out := l.verify(t, "--checkpoint", l.file); code != 1 || !strings.Contains(out, "BROKEN: stream s-a ends at version 2") {
		t.Fatalf("against the checkpoint: exit %d %s", code, out)
	}
}
