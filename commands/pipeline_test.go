package commands_test

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/journal"
	"github.com/payledger/payledger/eventstore/memory"
)

// countingStore counts the stream reads of the store it wraps.
type countingStore struct {
	commands.Store
	reads atomic.Int64
}

func (s *countingStore) ReadStream(ctx context.Context, stream string, from uint64, limit int) ([]eventstore.RecordedEvent, error) {
	s.reads.Add(1)
	return s.Store.ReadStream(ctx, stream, from, limit)
}

// generationStore is a store that takes decided generations (commands.GenerationAppender), as
// projections.ReceiptsAtAppend does, and remembers what it was handed.
type generationStore struct {
	*memory.Store
	got  []receipt.Generated
	keys []*journal.SealedKey
}

func (s *generationStore) AppendGeneration(ctx context.Context, stream string, expected eventstore.ExpectedVersion, g receipt.Generated,
	key *journal.SealedKey, ev eventstore.EventData) (eventstore.AppendResult, error) {
	s.got, s.keys = append(s.got, g), append(s.keys, key)
	return s.Append(ctx, stream, expected, ev)
}

func newGeneration(id string) receipt.Generated {
	return receipt.Generated{ReceiptID: id, Merchant: payMerchant, Source: "direct", Currency: "USD", Subtotal: money.Cents(500),
		Total: money.Cents(500), LineItems: []receipt.LineItem{{Kind: receipt.KindCustom, Label: "x", Amount: 500}}}
}

// TestGenerationGoesThroughThePipeline: a new receipt's generation is appended without reading
// its stream first (a new id has none); generating an id that exists reads it once and answers
// receipt.ErrExists at once (no pause for contention) and changes nothing; the same event appended
// again is a no-op with the first append's result.
func TestGenerationGoesThroughThePipeline(t *testing.T) {
	ctx := context.Background()
	now := time.Unix(1_800_000_000, 0)
	store := &countingStore{Store: memory.New(func() time.Time { return now })}
	st, res, err := commands.GenerateReceipt(ctx, store, now, eventstore.Metadata{}, newGeneration("rcpt_p1"))
	if err != nil || !st.Exists || res.Version != 1 {
		t.Fatalf("generated: %+v, %+v, %v", st, res, err)
	}
	if n := store.reads.Load(); n != 0 {
		t.Fatalf("a new receipt's stream was read %d times before its generation was appended", n)
	}
	began := time.Now()
	if _, _, err := commands.GenerateReceipt(ctx, store, now, eventstore.Metadata{}, newGeneration("rcpt_p1")); !errors.Is(err, receipt.ErrExists) {
		t.Fatalf("generating an existing id: %v, want receipt.ErrExists", err)
	}
	if n, took := store.reads.Load(), time.Since(began); n != 1 || took > 500*time.Millisecond {
		t.Fatalf("existing id: %d reads in %s; want 1, at once", n, took)
	}
	if evs, err := commands.ReadReceiptEvents(ctx, store, "rcpt_p1"); err != nil || len(evs) != 1 {
		t.Fatalf("%d events, %v; want the first generation only", len(evs), err)
	}

	ev, state, err := commands.GenerationEvent(newGeneration("rcpt_p2"), now, eventstore.Metadata{})
	if err != nil {
		t.Fatal(err)
	}
	first, err := commands.AppendGeneration(ctx, store, ev, state, nil)
	if err != nil {
		t.Fatal(err)
	}
	again, err := commands.AppendGeneration(ctx, store, ev, state, nil)
	if err != nil || again != first {
		t.Fatalf("the same generation again: %+v, %v; want %+v", again, err, first)
	}
}

// TestGenerationHandedOverDecided: a store that takes decided generations is handed the
// generation as decided (and the receipt's sealed key) beside its event, so what applies it at
// append need not decode the event; a store that cannot commit the key with it is refused it.
func TestGenerationHandedOverDecided(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Unix(1_800_000_000, 0)
	store := &generationStore{Store: memory.New(func() time.Time { return now })}
	ev, state, err := commands.GenerationEvent(newGeneration("rcpt_d1"), now, eventstore.Metadata{})
	if err != nil {
		t.Fatal(err)
	}
	key := &journal.SealedKey{ReceiptID: "rcpt_d1", Nonce: []byte{1}, Sealed: []byte{2}}
	if _, err := commands.AppendGeneration(ctx, store, ev, state, key); err != nil {
		t.Fatal(err)
	}
	if len(store.got) != 1 || !reflect.DeepEqual(store.got[0], state.Receipt) {
		t.Fatalf("handed %+v, want the decided %+v", store.got, state.Receipt)
	}
	if len(store.keys) != 1 || store.keys[0] != key {
		t.Fatalf("keys %+v, want the receipt's", store.keys)
	}
	plain := memory.New(func() time.Time { return now })
	if _, err := commands.AppendGeneration(ctx, plain, ev, state, key); err == nil {
		t.Fatal("a store that cannot commit a key with its receipt appended a generation with one")
	}
	if evs, _ := plain.ReadStream(ctx, commands.ReceiptStream("rcpt_d1"), 1, 10); len(evs) != 0 {
		t.Fatalf("%d events appended without their key", len(evs))
	}
}

// fromsStore records where each stream read of the store it wraps starts.
type fromsStore struct {
	commands.Store
	froms []uint64
}

func (s *fromsStore) ReadStream(ctx context.Context, stream string, from uint64, limit int) ([]eventstore.RecordedEvent, error) {
	s.froms = append(s.froms, from)
	return s.Store.ReadStream(ctx, stream, from, limit)
}

// TestConflictRetryReadsOnlyWhatCameAfter (stop 72): a try that loses its append to another
// writer (another process) decides again on the stream as it is now, reading only the events
// appended after the version it decided on, not the stream from its start; the state it then
// decides on is the whole stream's, as a fresh load folds it. It read the stream from version 1
// on every try: two processes refunding one receipt with many refunds paid its history per try.
func TestConflictRetryReadsOnlyWhatCameAfter(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Unix(1_800_000_000, 0)
	store := &fromsStore{Store: memory.New(func() time.Time { return now })}
	event := func(typ string) eventstore.EventData {
		return eventstore.EventData{ID: uuid.New(), Type: typ, Data: []byte(`{}`)}
	}
	const stream = "pipeline-p1"
	if _, err := store.Append(ctx, stream, eventstore.NoStream(), event("a"), event("b")); err != nil {
		t.Fatal(err)
	}
	types := commands.Aggregate[[]string]{Apply: func(s []string, e eventstore.RecordedEvent) ([]string, error) {
		return append(slices.Clip(s), e.Type), nil
	}}
	var seen [][]string
	loaded, res, err := commands.Execute(ctx, store, stream, types, nil, func(l commands.Loaded[[]string]) (commands.Decision, error) {
		seen = append(seen, l.State)
		if len(seen) == 1 { // another writer appends first
			if _, err := store.Append(ctx, stream, eventstore.Any(), event("other")); err != nil {
				return nil, err
			}
		}
		return commands.Decision{event("mine")}, nil
	})
	if err != nil || res.Version != 4 {
		t.Fatalf("append: %+v, %v; want version 4", res, err)
	}
	if want := [][]string{{"a", "b"}, {"a", "b", "other"}}; !reflect.DeepEqual(seen, want) || loaded.Version != 3 {
		t.Fatalf("decided on %v (version %d), want %v (version 3)", seen, loaded.Version, want)
	}
	if want := []uint64{1, 3}; !reflect.DeepEqual(store.froms, want) {
		t.Fatalf("the tries read from versions %v, want %v (the retry reads what came after version 2)", store.froms, want)
	}
	fresh, err := commands.Load(ctx, store, stream, types, nil)
	if err != nil || !reflect.DeepEqual(fresh.State, []string{"a", "b", "other", "mine"}) {
		t.Fatalf("the stream: %v, %v", fresh.State, err)
	}
}
