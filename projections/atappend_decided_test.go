package projections_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/conformance"
	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/migrations/pgtest"
	"github.com/payledger/payledger/projections"
)

// TestDecidedGenerationAppliedAtAppend: a generation handed over as its command decided it
// (ReceiptsAtAppend.AppendGeneration, the path of every order) commits its row and the
// checkpoint with its event when the projector is caught up, and the runner knows at once; the
// rows so made, also of a generation whose text JSON cannot keep, are the ones a rebuild makes.
func TestDecidedGenerationAppliedAtAppend(t *testing.T) {
	t.Parallel()
	pool, store, proj, r := atAppendSetup(t)
	ctx := context.Background()
	s := proj.AtAppend(store, r)
	var applied atomic.Int64
	projections.ObserveApplied(s, applied.Store)
	start(t, pool, store, proj)
	decide := func(id, label string) (receipt.Generated, eventstore.EventData) {
		g := receipt.Generated{ReceiptID: id, Merchant: "0xm", Source: "order", Currency: "USD", Total: money.Cents(250),
			LineItems: []receipt.LineItem{{Kind: receipt.KindItem, Label: label, Amount: 250, Unit: 125, Qty: 2}}, CreatedAt: 1}
		data, err := json.Marshal(g)
		if err != nil {
			t.Fatal(err)
		}
		return g, eventstore.EventData{ID: uuid.New(), Type: receipt.EventGenerated, Data: data, Marshaled: true}
	}
	var last eventstore.Position
	appendDecided := func(id, label string) eventstore.Position {
		g, ev := decide(id, label)
		applied.Store(0)
		res, err := s.AppendGeneration(ctx, projections.ReceiptStreamPrefix+id, eventstore.NoStream(), g, nil, ev)
		if err != nil {
			t.Fatal(err)
		}
		last = res.Position
		return res.Position
	}
	// Other test packages share the cluster: append until one is applied at append.
	for i, deadline := 0, time.Now().Add(20*time.Second); ; i++ {
		id := fmt.Sprintf("dec%d", i)
		p := appendDecided(id, "Latte")
		if applied.Load() > 0 {
			if pos, ok := rowAt(t, pool, id); !ok || pos != p || checkpoint(t, pool).Less(p) || r.Position().Less(p) {
				t.Fatalf("%s applied at append, but row %v at %s, checkpoint %s, runner %s; want all at %s",
					id, ok, pos, checkpoint(t, pool), r.Position(), p)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no decided generation applied at append in %d tries", i+1)
		}
		waitFor(t, r, p)
	}
	appendDecided("bad-text", "bad \xff")
	waitFor(t, r, last)
	live := snapshot(t, pool)
	if err := projections.Rebuild(ctx, pool, projections.NewReceipts(nil)); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); checkpoint(t, pool) != last; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("rebuild did not finish")
		}
	}
	if rebuilt := snapshot(t, pool); rebuilt != live {
		t.Fatalf("rebuilt read model differs from the live one:\nlive    %.300s\nrebuilt %.300s", live, rebuilt)
	}
}

// TestReceiptsAtAppendConformance: the decorator is an event store like the one it wraps.
func TestReceiptsAtAppendConformance(t *testing.T) {
	t.Parallel()
	conformance.Run(t, conformance.Harness{
		New: func(t *testing.T) eventstore.Store {
			return projections.NewReceipts(nil).AtAppend(postgres.New(pgtest.Pool(t)), nil)
		},
		NewPausing: func(t *testing.T, pause func(context.Context)) eventstore.Store {
			return projections.NewReceipts(nil).AtAppend(postgres.New(pgtest.Pool(t), postgres.WithBeforeCommit(pause)), nil)
		},
		GapEvents: 2000,
	})
}
