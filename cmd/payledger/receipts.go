package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/eventstore"
)

// errChainBroken makes `receipts history` exit non-zero when the hash chain does not hold.
var errChainBroken = errors.New("hash chain broken")

// receiptsCommand prints a receipt's audit history: the same document as
// GET /api/receipts/{id}/events.
func receiptsCommand(ctx context.Context, cfg config, log zerolog.Logger, args []string, stdout io.Writer) error {
	if len(args) != 2 || args[0] != "history" {
		return badUsage("payledger receipts: history <receipt id>", receiptsUsage)
	}
	_, store, closeLedger, err := openLedger(ctx, cfg, log)
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
