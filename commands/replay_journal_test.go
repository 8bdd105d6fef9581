package commands_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/journal"
	"github.com/payledger/payledger/eventstore/memory"
)

// savedKeys keeps sealed keys in memory; a second save keeps the first.
type savedKeys map[string][]byte

func (k savedKeys) SaveSealed(_ context.Context, id string, _, sealed []byte) error {
	if _, ok := k[id]; !ok {
		k[id] = sealed
	}
	return nil
}

// TestJournalReplayGoesThroughThePipeline: a journaled order's generation is replayed as the
// order would have appended it (handed over decided, so the receipts projection applies it at
// append), its key saved; the same entry again stores nothing twice; an entry whose receipt id is
// taken by another receipt is refused; an entry of another stream is stored as a new stream's.
func TestJournalReplayGoesThroughThePipeline(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Unix(1_800_000_000, 0)
	store := &generationStore{Store: memory.New(func() time.Time { return now })}
	keys := savedKeys{}
	replay := commands.NewJournalReplay(store, keys)
	ev, state, err := commands.GenerationEvent(newGeneration("rcpt_j1"), now, eventstore.Metadata{})
	if err != nil {
		t.Fatal(err)
	}
	stream := commands.ReceiptStream("rcpt_j1")
	entry := journal.Entry{Stream: stream, Events: []eventstore.EventData{ev}}.
		WithSealedKey(journal.SealedKey{ReceiptID: "rcpt_j1", Nonce: []byte{1}, Sealed: []byte{2}})
	for range 2 {
		if err := replay.StoreEntry(ctx, entry); err != nil {
			t.Fatal(err)
		}
	}
	if len(store.got) == 0 || !reflect.DeepEqual(store.got[0], state.Receipt) {
		t.Fatalf("handed %+v, want the journaled generation", store.got)
	}
	if evs, _ := store.ReadStream(ctx, stream, 1, 10); len(evs) != 1 || evs[0].ID != ev.ID {
		t.Fatalf("stream holds %d events, want the journaled one once", len(evs))
	}
	if string(keys["rcpt_j1"]) != "\x02" {
		t.Fatalf("key not saved: %v", keys)
	}

	other, _, err := commands.GenerationEvent(newGeneration("rcpt_j1"), now, eventstore.Metadata{})
	if err != nil {
		t.Fatal(err)
	}
	if err := replay.StoreEntry(ctx, journal.Entry{Stream: stream, Events: []eventstore.EventData{other}}); !errors.Is(err, receipt.ErrExists) {
		t.Fatalf("another receipt under a taken id: %v, want receipt.ErrExists", err)
	}

	plain := journal.Entry{Stream: "other-1", Events: []eventstore.EventData{{ID: uuid.New(), Type: "Happened", Data: []byte(`{}`)}}}
	for range 2 {
		if err := replay.StoreEntry(ctx, plain); err != nil {
			t.Fatal(err)
		}
	}
	if evs, _ := store.ReadStream(ctx, "other-1", 1, 10); len(evs) != 1 {
		t.Fatalf("other stream holds %d events, want 1", len(evs))
	}
	taken := journal.Entry{Stream: "other-1", Events: []eventstore.EventData{{ID: uuid.New(), Type: "Happened", Data: []byte(`{}`)}}}
	if err := replay.StoreEntry(ctx, taken); err == nil {
		t.Fatal("an entry of a stream holding other events was stored")
	}
}
