package journal

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/google/uuid"

	"github.com/payledger/payledger/eventstore"
)

func entry(stream string) Entry {
	return Entry{Stream: stream, Events: []eventstore.EventData{{ID: uuid.New(), Type: "T", Data: []byte(`{"i":1}`)}}}
}

// openWith opens a journal in a fresh folder and appends an entry for each of streams.
func openWith(t *testing.T, streams ...string) (*Journal, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	j, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range streams {
		if err := j.Append(entry(s)); err != nil {
			t.Fatal(err)
		}
	}
	return j, path
}

// A write that fails half-way (a full disk) is refused and cut off again, so the next entry,
// acknowledged, starts a line of its own and is replayed. Before, the torn bytes stayed, the next
// entry was glued to them, the line read as garbage, and the drain dropped it: an order answered
// "degraded: true" never reached the event log.
func TestAFailedWriteLosesNoLaterEntry(t *testing.T) {
	t.Parallel()
	j, path := openWith(t, "rcpt-1")
	j.write = func(f *os.File, b []byte) (int, error) { // the disk fills half-way through
		n, _ := f.Write(b[:len(b)/2])
		return n, syscall.ENOSPC
	}
	if err := j.Append(entry("rcpt-2")); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("a short write: %v", err)
	}
	j.write = (*os.File).Write
	if err := j.Append(entry("rcpt-3")); err != nil {
		t.Fatal(err)
	}
	_ = j.Close()
	again, err := Open(path) // a restart
	if err != nil {
		t.Fatal(err)
	}
	var applied []string
	if _, err := again.Drain(context.Background(), func(_ context.Context, e Entry) error {
		applied = append(applied, e.Stream)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(applied) != 2 || applied[0] != "rcpt-1" || applied[1] != "rcpt-3" {
		t.Fatalf("replayed %v, want rcpt-1 and rcpt-3 (rcpt-2 was refused)", applied)
	}
}

// A line that is not an entry (damage, not a torn tail) is never dropped: the drain applies the
// others, keeps it in the file and says so every time.
func TestAnUnreadableLineIsKept(t *testing.T) {
	t.Parallel()
	j, path := openWith(t, "rcpt-1")
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.WriteString("{\"stream\":\"rcpt-2\",\"ev{\"stream\":\"rcpt-2\"}\n")
	f.Close()
	if err := j.Append(entry("rcpt-3")); err != nil {
		t.Fatal(err)
	}
	n, err := j.Drain(context.Background(), func(context.Context, Entry) error { return nil })
	if n != 2 || err == nil {
		t.Fatalf("drain: %d applied, %v; want 2 and an error naming the kept line", n, err)
	}
	b, _ := os.ReadFile(path)
	if string(b) != "{\"stream\":\"rcpt-2\",\"ev{\"stream\":\"rcpt-2\"}\n" {
		t.Fatalf("the journal after the drain: %q", b)
	}
}

// Another process draining the same file meanwhile (two instances given one JOURNAL_PATH) leaves
// it shorter than this drain read: the drain says so and rewrites nothing (it sliced past the
// file's end and panicked), and its entries stay pending, to be applied again idempotently.
func TestADrainOfAFileThatShrankRewritesNothing(t *testing.T) {
	t.Parallel()
	j, path := openWith(t, "rcpt-1", "rcpt-2")
	_, err := j.Drain(context.Background(), func(context.Context, Entry) error {
		return os.Truncate(path, 0) // the other process's drain
	})
	if err == nil {
		t.Fatal("a drain of a file that shrank under it reported nothing")
	}
	if _, ok := j.Lookup("rcpt-1"); !ok {
		t.Fatal("an entry the drain could not remove is no longer pending")
	}
}
