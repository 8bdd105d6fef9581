package journal

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/uuid"

	"github.com/payledger/payledger/eventstore"
)

func TestAppendDrainAndTornTail(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j", "journal.jsonl")
	j, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if err := j.Append(Entry{Stream: "s", Events: []eventstore.EventData{{ID: uuid.New(), Type: "T", Data: []byte(`{"i":1}`)}}, At: int64(i)}); err != nil {
			t.Fatal(err)
		}
	}
	// A crash in the middle of a write leaves a torn line, never acknowledged.
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0o600)
	_, _ = f.WriteString(`{"stream":"s","ev`)
	f.Close()
	again, _ := Open(path) // a restart
	pending, err := again.Pending()
	if err != nil || len(pending) != 3 {
		t.Fatalf("pending %d, %v", len(pending), err)
	}
	calls := 0
	if _, err := again.Drain(context.Background(), func(context.Context, Entry) error {
		calls++
		if calls == 2 {
			return errors.New("store down")
		}
		return nil
	}); err == nil {
		t.Fatal("a failed replay reported success")
	}
	if p, _ := again.Pending(); len(p) != 3 {
		t.Fatalf("a failed drain lost entries: %d left", len(p))
	}
	n, err := again.Drain(context.Background(), func(context.Context, Entry) error { return nil })
	if err != nil || n != 3 {
		t.Fatalf("drain %d %v", n, err)
	}
	if p, _ := again.Pending(); len(p) != 0 {
		t.Fatalf("%d entries after a full drain", len(p))
	}
}
