package journal

import (
	"context"
	"errors"
	"os"
	"testing"
)

// The journal had no cap: a long, busy outage grew it (and the entries held in memory, and each
// replay pass's read of the whole file) without bound. Past its cap an append is refused with
// ErrFull, the file is left as it was, and a replay that stores the entries makes room again.
func TestAFullJournalRefusesAppendsUntilTheReplayEmptiesIt(t *testing.T) {
	t.Parallel()
	j, path := openWith(t, "rcpt-1")
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	j.maxBytes = 2*st.Size() + 10 // room for one more entry of the same size
	if err := j.Append(entry("rcpt-2")); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	if err := j.Append(entry("rcpt-3")); !errors.Is(err, ErrFull) {
		t.Fatalf("an append past the cap: %v", err)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Fatal("a refused append changed the file")
	}
	if _, ok := j.Lookup("rcpt-3"); ok {
		t.Fatal("a refused entry is looked up as journaled")
	}
	if n, err := j.Drain(context.Background(), func(context.Context, Entry) error { return nil }); err != nil || n != 2 {
		t.Fatalf("drain: %d, %v", n, err)
	}
	if err := j.Append(entry("rcpt-3")); err != nil {
		t.Fatalf("an append after the replay made room: %v", err)
	}
}
