package commands_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/memory"
)

// TestHistoryShowsTheTelemetrysHashLinks: each clock hour's reports of the payment page are a
// hash chain of their own, and the history shows each report's link as it shows each event's. It
// showed every report's prevHash null, as if each began a chain, so an auditor could not follow
// the chain of an hour's reports (nor see one taken out of it).
func TestHistoryShowsTheTelemetrysHashLinks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Now()
	store := memory.New(func() time.Time { return now })
	merchant := "0x" + strings.Repeat("a", 40)
	g := receipt.Generated{ReceiptID: "hist-1", Merchant: merchant, Currency: "USD",
		LineItems: []receipt.LineItem{{Kind: receipt.KindCustom, Label: "x", Amount: 250}}, Total: 250}
	if _, _, err := commands.GenerateReceipt(ctx, store, now, eventstore.Metadata{Actor: "test"}, g); err != nil {
		t.Fatal(err)
	}
	for _, ev := range []string{"link_opened", "error"} {
		report := receipt.TelemetryRecorded{Event: ev, At: now.UnixMilli()}
		if err := commands.AppendTelemetry(ctx, store, "hist-1", now, []receipt.Event{report}, eventstore.Metadata{Actor: "customer"}); err != nil {
			t.Fatal(err)
		}
	}
	h, err := commands.ReceiptHistory(ctx, store, "hist-1", merchant)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Telemetry) != 2 {
		t.Fatalf("%d reports, want 2", len(h.Telemetry))
	}
	first, second := h.Telemetry[0], h.Telemetry[1]
	if first.PrevHash != nil {
		t.Fatalf("the hour's first report links to %s, want null", *first.PrevHash)
	}
	if second.PrevHash == nil || *second.PrevHash != first.Hash {
		t.Fatalf("the hour's second report links to %v, want the first's hash %s", second.PrevHash, first.Hash)
	}
	if len(h.Events) != 1 || h.Events[0].PrevHash != nil || !h.ChainValid {
		t.Fatalf("the receipt's own events: %+v (chain valid %v)", h.Events, h.ChainValid)
	}
}
