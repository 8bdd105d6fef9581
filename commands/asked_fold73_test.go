package commands_test

import (
	"context"
	"errors"
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

// TestProcessorReportLoadFoldsLinearly (stop 73): a processor's report loads the receipt with the
// amounts asked of its sessions (askedAggregate). It folded with Evolve, event by event, after
// every other receipt load had moved to receipt.Folder: 1,000 dust credits allocated about 190 MB
// per report. Its state is Evolve's, and the asked amounts are kept.
func TestProcessorReportLoadFoldsLinearly(t *testing.T) {
	ctx := context.Background()
	store := postgres.New(pgtest.Pool(t))
	evs := receipttest.CreditStream("asked", 1000)
	evs = append(evs[:1:1], append([]receipt.Event{receipt.AttemptStarted{AttemptID: "a1", Kind: "onramp", OpenedBy: "service", AskedUSDCents: 1234, At: 1}}, evs[1:]...)...)
	appendReceiptEvents(t, store, "asked", 0, evs)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	st, asked, err := commands.LoadAsked(ctx, store, "asked")
	runtime.ReadMemStats(&after)
	if err != nil || len(st.Credits) < 700 {
		t.Fatalf("%d credits, %v", len(st.Credits), err)
	}
	if mb := (after.TotalAlloc - before.TotalAlloc) >> 20; mb > 60 {
		t.Fatalf("loading %d credits allocated %d MB: the fold is not linear in the credits", len(st.Credits), mb)
	}
	if !reflect.DeepEqual(st, evolvedStream(t, store, "asked")) {
		t.Fatal("the loaded state differs from Evolve's")
	}
	if !reflect.DeepEqual(asked, map[string]int64{"a1": 1234}) {
		t.Fatalf("asked %v", asked)
	}
}

// TestReceiptAggregateMarksWhatDoesNotDecode (stop 73): the split distributor's receipt loads
// (commands.ReceiptAggregate with a mark) fold through receipt.Folder and still tell an event this
// build cannot read from the store's failures.
func TestReceiptAggregateMarksWhatDoesNotDecode(t *testing.T) {
	ctx := context.Background()
	store := postgres.New(pgtest.Pool(t))
	appendReceiptEvents(t, store, "newer", 0, receipttest.CreditStream("newer", 3))
	l, err := commands.LoadReceipt(ctx, store, "newer")
	if err != nil {
		t.Fatal(err)
	}
	ev, err := commands.NewEvent(uuid.New(), "ReceiptFromANewerBuild", map[string]int{"x": 1}, eventstore.Metadata{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Append(ctx, commands.ReceiptStream("newer"), eventstore.Exact(l.Version), ev); err != nil {
		t.Fatal(err)
	}
	marked := errors.New("undecodable")
	agg := commands.ReceiptAggregate(func(err error) error { return errors.Join(marked, err) })
	if _, err := commands.Load(ctx, store, commands.ReceiptStream("newer"), agg, receipt.State{}); !errors.Is(err, marked) {
		t.Fatalf("load: %v, want it marked", err)
	}
}
