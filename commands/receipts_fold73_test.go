package commands_test

import (
	"context"
	"fmt"
	"reflect"
	"runtime"
	"testing"

	"github.com/google/uuid"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/domain/receipt/receipttest"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/migrations/pgtest"
)

// appendReceiptEvents appends evs to receipt id's stream after version from, in pages.
func appendReceiptEvents(tb testing.TB, store commands.Store, id string, from int, evs []receipt.Event) {
	tb.Helper()
	for len(evs) > 0 {
		page := evs[:min(len(evs), 500)]
		data := make([]eventstore.EventData, len(page))
		for i, e := range page {
			var err error
			if data[i], err = commands.NewEvent(uuid.New(), receipt.TypeOf(e), e, eventstore.Metadata{}); err != nil {
				tb.Fatal(err)
			}
		}
		if _, err := store.Append(context.Background(), commands.ReceiptStream(id), eventstore.Exact(uint64(from)), data...); err != nil {
			tb.Fatal(err)
		}
		from, evs = from+len(page), evs[len(page):]
	}
}

// evolvedStream is receipt id's state as Evolve folds its stored events one by one: what every
// load must equal.
func evolvedStream(tb testing.TB, store commands.Store, id string) receipt.State {
	tb.Helper()
	recorded, err := commands.ReadReceiptEvents(context.Background(), store, id)
	if err != nil {
		tb.Fatal(err)
	}
	s := receipt.State{}
	for _, e := range recorded {
		ev, err := receipt.Decode(e.Type, e.Data)
		if err != nil {
			tb.Fatal(err)
		}
		s = receipt.Evolve(s, ev)
	}
	return s
}

// TestReceiptRetryFoldsAsEvolve (stop 73): a receipt loaded, then brought up to date by the
// pipeline's retry (another writer appended the rest of its stream meanwhile), is the state
// Evolve folds from its whole stream, whatever the split; and the state the first try decided on
// is not changed by the retry's fold (it shares its credits until the fold changes them).
func TestReceiptRetryFoldsAsEvolve(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := postgres.New(pgtest.Pool(t))
	evs := receipttest.CreditStream("whole", 24)
	appendReceiptEvents(t, store, "whole", 0, evs)
	want := evolvedStream(t, store, "whole")
	if l, err := commands.LoadReceipt(ctx, store, "whole"); err != nil || !reflect.DeepEqual(l.State, want) || l.Version != uint64(len(evs)) {
		t.Fatalf("LoadReceipt: version %d, %v; equal to Evolve's: %v", l.Version, err, reflect.DeepEqual(l.State, want))
	}
	for k := 1; k < len(evs); k++ {
		id := fmt.Sprintf("split%d", k)
		appendReceiptEvents(t, store, id, 0, evs[:k])
		before := evolvedStream(t, store, id)
		var first, last receipt.State
		tries := 0
		_, _, err := commands.ChangeReceipt(ctx, store, id, eventstore.Metadata{}, func(st receipt.State) ([]receipt.Event, error) {
			tries++
			if tries > 1 {
				last = st
				return nil, nil
			}
			first = st
			appendReceiptEvents(t, store, id, k, evs[k:]) // another writer got there first
			return []receipt.Event{receipt.TokenQuoted{Token: "USDC", Amount: "12.31", At: 99}}, nil
		})
		switch {
		case err != nil || tries != 2:
			t.Fatalf("split at %d: %d tries, %v", k, tries, err)
		case !reflect.DeepEqual(last, want):
			t.Fatalf("split at %d: the retry's state differs from Evolve's of the whole stream:\n got %+v\nwant %+v", k, last.Credits, want.Credits)
		case !reflect.DeepEqual(first, before):
			t.Fatalf("split at %d: the first try's state was changed by the retry's fold", k)
		}
	}
}

// TestLoadReceiptAllocatesLinearly (stop 73): loading a receipt of 1,000 credits allocates in
// proportion to its stream. Folded with Evolve, each credit copied all the credits before it
// (about 240 MB here); through receipt.Folder it is a few MB. The bound is not a timing.
func TestLoadReceiptAllocatesLinearly(t *testing.T) {
	ctx := context.Background()
	store := postgres.New(pgtest.Pool(t))
	appendReceiptEvents(t, store, "dust", 0, receipttest.CreditStream("dust", 1000))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	l, err := commands.LoadReceipt(ctx, store, "dust")
	runtime.ReadMemStats(&after)
	if err != nil || len(l.State.Credits) < 700 {
		t.Fatalf("%d credits, %v", len(l.State.Credits), err)
	}
	if mb := (after.TotalAlloc - before.TotalAlloc) >> 20; mb > 60 {
		t.Fatalf("loading %d credits allocated %d MB: the fold is not linear in the credits", len(l.State.Credits), mb)
	}
	if !reflect.DeepEqual(l.State, evolvedStream(t, store, "dust")) {
		t.Fatal("the loaded state differs from Evolve's")
	}
}

// BenchmarkLoadReceiptCredits (stop 73): LoadReceipt of a receipt of 5,000 credits (about 12,000
// events) from PostgreSQL.
func BenchmarkLoadReceiptCredits(b *testing.B) {
	ctx := context.Background()
	store := postgres.New(pgtest.Pool(b))
	appendReceiptEvents(b, store, "dust", 0, receipttest.CreditStream("dust", 5000))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := commands.LoadReceipt(ctx, store, "dust"); err != nil {
			b.Fatal(err)
		}
	}
}
