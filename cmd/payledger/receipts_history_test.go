package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/memory"
)

// TestReceiptsHistoryShowsTheTelemetry: `payledger receipts history` prints the document
// GET /api/receipts/{id}/events answers, the payment page's reports included. It printed
// `"telemetry": null` for every receipt, so an operator looking into a customer's failed
// checkout saw none of the errors the page reported.
func TestReceiptsHistoryShowsTheTelemetry(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Now()
	store := memory.New(func() time.Time { return now })
	merchant := "0x" + strings.Repeat("a", 40)
	for _, id := range []string{"tele-1", "tele-2"} {
		g := receipt.Generated{ReceiptID: id, Merchant: merchant, Currency: "USD",
			LineItems: []receipt.LineItem{{Kind: receipt.KindCustom, Label: "x", Amount: 250}}, Total: 250}
		if _, _, err := commands.GenerateReceipt(ctx, store, now, eventstore.Metadata{Actor: "test"}, g); err != nil {
			t.Fatal(err)
		}
	}
	report := receipt.TelemetryRecorded{Event: "error", Code: "PORTAL_CHAIN_USER_REJECTED", At: now.UnixMilli()}
	if err := commands.AppendTelemetry(ctx, store, "tele-1", now, []receipt.Event{report}, eventstore.Metadata{Actor: "customer"}); err != nil {
		t.Fatal(err)
	}
	want, err := commands.ReceiptHistory(ctx, store, "tele-1", merchant)
	if err != nil || len(want.Telemetry) != 1 {
		t.Fatalf("the API's history: %d reports, %v", len(want.Telemetry), err)
	}
	for _, tc := range []struct {
		id      string
		reports int
	}{{"tele-1", 1}, {"tele-2", 0}} {
		var out bytes.Buffer
		if err := printReceiptHistory(ctx, store, tc.id, &out); err != nil {
			t.Fatal(err)
		}
		var got commands.History
		if err := json.Unmarshal(out.Bytes(), &got); err != nil {
			t.Fatal(err)
		}
		if got.Telemetry == nil || len(got.Telemetry) != tc.reports {
			t.Fatalf("%s: telemetry %v, want %d report(s)\n%s", tc.id, got.Telemetry, tc.reports, out.String())
		}
		if tc.reports == 1 && (got.Telemetry[0].Type != receipt.EventTelemetry || !strings.Contains(string(got.Telemetry[0].Data), "PORTAL_CHAIN_USER_REJECTED")) {
			t.Fatalf("%s: %+v", tc.id, got.Telemetry[0])
		}
	}
}
