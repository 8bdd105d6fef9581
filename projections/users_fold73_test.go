package projections

import (
	"context"
	"encoding/json"
	"reflect"
	"runtime"
	"testing"

	"github.com/google/uuid"

	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/domain/receipt/receipttest"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/migrations/pgtest"
)

// TestUsersFoldCreditsAsEvolve (stop 73): the users projector's fold of a receipt's history up to
// an event (foldUpTo, for XP) of 1,000 credits is Evolve's state, and allocates in proportion to
// the stream (folded with Evolve, each credit copied the credits before it: about 190 MB). The
// bound is not a timing.
func TestUsersFoldCreditsAsEvolve(t *testing.T) {
	ctx := context.Background()
	s := postgres.New(pgtest.Pool(t))
	evs := receipttest.CreditStream("dust", 1000)
	data := make([]eventstore.EventData, len(evs))
	for i, e := range evs {
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		data[i] = eventstore.EventData{ID: uuid.New(), Type: receipt.TypeOf(e), Data: b}
	}
	if _, err := s.Append(ctx, ReceiptStreamPrefix+"dust", eventstore.NoStream(), data...); err != nil {
		t.Fatal(err)
	}
	recorded, err := s.ReadStream(ctx, ReceiptStreamPrefix+"dust", 1, len(evs))
	if err != nil {
		t.Fatal(err)
	}
	want := receipt.State{}
	for _, e := range recorded {
		ev, err := receipt.Decode(e.Type, e.Data)
		if err != nil {
			t.Fatal(err)
		}
		want = receipt.Evolve(want, ev)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f, err := foldUpTo(ctx, s, ReceiptStreamPrefix+"dust", uint64(len(evs)))
	runtime.ReadMemStats(&after)
	if err != nil || !reflect.DeepEqual(f.state, want) || len(want.Credits) < 700 {
		t.Fatalf("%v; %d credits, equal to Evolve's: %v", err, len(f.state.Credits), reflect.DeepEqual(f.state, want))
	}
	if mb := (after.TotalAlloc - before.TotalAlloc) >> 20; mb > 60 {
		t.Fatalf("folding %d credits allocated %d MB: the fold is not linear in the credits", len(f.state.Credits), mb)
	}
}
