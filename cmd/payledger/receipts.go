package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
)

// errChainBroken makes `receipts history` exit non-zero when the hash chain does not hold.
var errChainBroken = errors.New("hash chain broken")

// receiptsCommand prints a receipt's audit history: the same document as
// GET /api/receipts/{id}/events, the payment page's telemetry included.
func receiptsCommand(ctx context.Context, cfg config, log zerolog.Logger, args []string, stdout io.Writer) error {
	if len(args) != 2 || args[0] != "history" {
		return badUsage("payledger receipts: history <receipt id>", receiptsUsage)
	}
	_, store, closeLedger, err := openToolLedger(ctx, cfg, log, readLedger)
	if err != nil {
		return err
	}
	defer closeLedger()
	return printReceiptHistory(ctx, store, args[1], stdout)
}

// printReceiptHistory prints a receipt's history read through the event-store port (any adapter);
// errChainBroken when its hash chain does not hold.
func printReceiptHistory(ctx context.Context, store eventstore.Store, id string, stdout io.Writer) error {
	events, err := commands.ReadReceiptEvents(ctx, store, id)
	if err != nil {
		return err
	}
	if len(events) == 0 {
		return fmt.Errorf("receipt %q not found", id)
	}
	view := commands.NewHistory(id, events)
	if view.Telemetry, err = receiptTelemetry(ctx, store, id, events[0]); err != nil {
		return err
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(view); err != nil {
		return err
	}
	if !view.ChainValid {
		return fmt.Errorf("%w at version %d: %s", errChainBroken, view.BrokenAt.Version, view.BrokenAt.Reason)
	}
	return nil
}

// receiptTelemetry is the payment page's reports of the receipt, as the API's history shows them
// (its telemetry streams are apart from its own): read through commands.ReceiptHistory, which
// reads them for the receipt's merchant, named by its first event. A first event that names no
// merchant (a tampered one) gives none: the events and the broken chain are still printed.
func receiptTelemetry(ctx context.Context, store eventstore.Store, id string, first eventstore.RecordedEvent) ([]commands.HistoryEvent, error) {
	var g receipt.Generated
	if first.Type != receipt.EventGenerated || json.Unmarshal(first.Data, &g) != nil || g.Merchant == "" {
		return []commands.HistoryEvent{}, nil
	}
	h, err := commands.ReceiptHistory(ctx, store, id, g.Merchant)
	if errors.Is(err, commands.ErrReceiptNotFound) {
		return []commands.HistoryEvent{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the receipt's telemetry: %w", err)
	}
	return h.Telemetry, nil
}
