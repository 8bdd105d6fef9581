package projections_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/uuid"

	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/projections"
	"github.com/payledger/payledger/readmodels"
)

// TestReceiptCreatedTakesDecidedGenerations: a generation appended through ReceiptsAtAppend
// hands its decided state to the receipt.created projector, which then makes, without decoding
// the event, the very entry it makes from the stored event (empty metadata, text JSON escapes,
// text JSON cannot keep); a state is taken once, and a failed append hands nothing over.
func TestReceiptCreatedTakesDecidedGenerations(t *testing.T) {
	t.Parallel()
	_, store, proj, r := atAppendSetup(t)
	ctx := context.Background()
	decided := projections.NewGenerations(0)
	s := proj.AtAppend(store, r).HandsTo(decided)
	withDecided, decoding := projections.ReceiptCreated{Decided: decided}, projections.ReceiptCreated{}
	for i, meta := range []map[string]string{{}, nil, {"note": "<b>&amp; \u2028"}, {"bad": "\xff"}} {
		id := fmt.Sprintf("handoff%d", i)
		g := receipt.Generated{ReceiptID: id, Merchant: "0xm", Source: "order", Currency: "USD", Total: money.Cents(250),
			LineItems:     []receipt.LineItem{{Kind: receipt.KindItem, Label: "Latte", Amount: 250, Unit: 125, Qty: 2}},
			TaxComponents: []string{}, Metadata: meta, DefaultToken: "EURC", CreatedAt: 1}
		data, err := json.Marshal(g)
		if err != nil {
			t.Fatal(err)
		}
		ev := eventstore.EventData{ID: uuid.New(), Type: receipt.EventGenerated, Data: data}
		if _, err := s.AppendGeneration(ctx, projections.ReceiptStreamPrefix+id, eventstore.NoStream(), g, nil, ev); err != nil {
			t.Fatal(err)
		}
		if n := projections.Held(decided); n != 1 {
			t.Fatalf("%s: %d states held after its append, want 1", id, n)
		}
		recorded, err := store.ReadStream(ctx, projections.ReceiptStreamPrefix+id, 1, 1)
		if err != nil || len(recorded) != 1 {
			t.Fatalf("%s: read %d events: %v", id, len(recorded), err)
		}
		want := entry(t, decoding, recorded[0])
		if got := entry(t, withDecided, recorded[0]); got != want {
			t.Errorf("%s: entry from the decided state\n%s\nwant, as decoded,\n%s", id, got, want)
		}
		if n := projections.Held(decided); n != 0 {
			t.Fatalf("%s: %d states held after the projector took it, want 0", id, n)
		}
		if _, err := s.AppendGeneration(ctx, projections.ReceiptStreamPrefix+id, eventstore.NoStream(), g, nil,
			eventstore.EventData{ID: uuid.New(), Type: receipt.EventGenerated, Data: data}); err == nil {
			t.Fatalf("%s: a second generation was appended", id)
		}
		if n := projections.Held(decided); n != 0 {
			t.Fatalf("%s: a failed append left %d states held", id, n)
		}
	}
}

// entry is the JSON of the receipt.created data p records for e.
func entry(t *testing.T, p projections.ReceiptCreated, e eventstore.RecordedEvent) string {
	t.Helper()
	st, err := projections.ReceiptCreatedState(p, e)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(readmodels.ReceiptWebhookOf(st, e.RecordedAt))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestGenerationsKeepTheNewest: a full hand-off forgets its oldest state first.
func TestGenerationsKeepTheNewest(t *testing.T) {
	t.Parallel()
	g := projections.NewGenerations(2)
	ids := []uuid.UUID{uuid.New(), uuid.New(), uuid.New()}
	for _, id := range ids {
		projections.PutGeneration(g, id, receipt.State{})
	}
	for i, want := range []bool{false, true, true} {
		if got := projections.TakeGeneration(g, ids[i]); got != want {
			t.Errorf("state %d held: %v, want %v", i, got, want)
		}
	}
}
