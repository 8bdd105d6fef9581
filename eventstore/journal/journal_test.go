package journal

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/uuid"

	"github.com/payledger/payledger/eventstore"
)

func TestAppendDrainAndTornTail(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "j", "journal.jsonl")
	j, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if err := j.Append(Entry{Stream: fmt.Sprintf("s-%d", i), Events: []eventstore.EventData{{ID: uuid.New(), Type: "T", Data: []byte(`{"i":1}`)}}, At: int64(i)}); err != nil {
			t.Fatal(err)
		}
	}
	// A crash in the middle of a write leaves a torn line, never acknowledged.
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0o600)
	_, _ = f.WriteString(`{"stream":"s","ev`)
	f.Close()
	_ = j.Close()
	again, _ := Open(path) // a restart
	pending, err := again.Pending()
	if err != nil || len(pending) != 3 {
		t.Fatalf("pending %d, %v", len(pending), err)
	}
	calls := 0
	if n, err := again.Drain(context.Background(), func(context.Context, Entry) error {
		calls++
		if calls == 2 {
			return errors.New("store down")
		}
		return nil
	}); err == nil || n != 2 {
		t.Fatalf("a drain with one failed entry: %d applied, %v", n, err)
	}
	// Only the entry that was not stored stays; the ones on either side of it are gone.
	if p, _ := again.Pending(); len(p) != 1 || p[0].At != 1 {
		t.Fatalf("after a partly failed drain: %+v", p)
	}
	if err := again.Append(Entry{Stream: "s-3", Events: []eventstore.EventData{{ID: uuid.New(), Type: "T"}}, At: 3}); err != nil {
		t.Fatal(err)
	}
	n, err := again.Drain(context.Background(), func(context.Context, Entry) error { return nil })
	if err != nil || n != 2 {
		t.Fatalf("drain %d %v", n, err)
	}
	if p, _ := again.Pending(); len(p) != 0 {
		t.Fatalf("%d entries after a full drain", len(p))
	}
}

// An append made while a drain replays entries is neither lost nor replayed by that drain.
func TestAppendDuringDrainIsKept(t *testing.T) {
	t.Parallel()
	j, err := Open(filepath.Join(t.TempDir(), "journal.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	entry := func(at int64) Entry {
		return Entry{Stream: fmt.Sprintf("s-%d", at), Events: []eventstore.EventData{{ID: uuid.New(), Type: "T"}}, At: at}
	}
	_ = j.Append(entry(1))
	n, err := j.Drain(context.Background(), func(_ context.Context, e Entry) error {
		return j.Append(entry(2)) // would deadlock if the drain held the file
	})
	if err != nil || n != 1 {
		t.Fatalf("drain %d %v", n, err)
	}
	if p, _ := j.Pending(); len(p) != 1 || p[0].At != 2 {
		t.Fatalf("pending after the drain: %+v", p)
	}
}

// A torn tail cut at open: the next append is a line of its own and survives.
func TestAppendAfterTornTailIsReadable(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	if err := os.WriteFile(path, []byte(`{"stream":"s","events":[],"at":1}`+"\n"+`{"stream":"s","ev`), 0o600); err != nil {
		t.Fatal(err)
	}
	j, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Append(Entry{Stream: "t", At: 2}); err != nil {
		t.Fatal(err)
	}
	if p, _ := j.Pending(); len(p) != 2 || p[1].At != 2 {
		t.Fatalf("pending: %+v", p)
	}
}

// A journaled entry can be looked up by its stream until a drain stores it, also after a restart.
func TestLookupUntilStored(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	j, _ := Open(path)
	_ = j.Append(Entry{Stream: "receipt-a", Events: []eventstore.EventData{{ID: uuid.New(), Type: "T"}}, At: 1})
	if _, ok := j.Lookup("receipt-a"); !ok {
		t.Fatal("journaled entry not found")
	}
	_ = j.Close()
	again, _ := Open(path)
	if e, ok := again.Lookup("receipt-a"); !ok || e.At != 1 {
		t.Fatal("journaled entry not found after a restart")
	}
	if _, err := again.Drain(context.Background(), func(context.Context, Entry) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if _, ok := again.Lookup("receipt-a"); ok {
		t.Fatal("stored entry still looked up in the journal")
	}
}
