package projections

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/readmodels"
)

// ReceiptStreamPrefix starts the stream id of every receipt.
const ReceiptStreamPrefix = "receipt-"

// Receipts keeps the receipts read model (lists, reads, status).
type Receipts struct{}

var _ Projector = Receipts{}

// Name implements Projector.
func (Receipts) Name() string { return "receipts" }

// Apply implements Projector: it folds the batch's events into each receipt's stored state with
// receipt.Evolve (the aggregate's own function) and writes the states back in one round trip.
func (Receipts) Apply(ctx context.Context, tx pgx.Tx, events []eventstore.RecordedEvent) error {
	var ids []string
	seen := map[string]bool{}
	for _, e := range events {
		if id, ok := strings.CutPrefix(e.StreamID, ReceiptStreamPrefix); ok && !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	states, versions, err := readmodels.LoadStates(ctx, tx, ids)
	if err != nil {
		return err
	}
	firstPos := map[string]eventstore.Position{}
	dirty := map[string]bool{}
	for _, e := range events {
		id, ok := strings.CutPrefix(e.StreamID, ReceiptStreamPrefix)
		if !ok || e.Version <= versions[id] {
			continue
		}
		ev, err := receipt.Decode(e.Type, e.Data)
		if err != nil {
			return fmt.Errorf("receipts projector at %s: %w", e.Position, err)
		}
		if e.Version == 1 {
			firstPos[id] = e.Position
		}
		states[id], versions[id], dirty[id] = receipt.Evolve(states[id], ev), e.Version, true
	}
	batch := &pgx.Batch{}
	for _, id := range ids {
		if !dirty[id] || !states[id].Exists {
			continue
		}
		if err := readmodels.QueueState(batch, states[id], versions[id], firstPos[id]); err != nil {
			return err
		}
	}
	if batch.Len() == 0 {
		return nil
	}
	if err := tx.SendBatch(ctx, batch).Close(); err != nil {
		return fmt.Errorf("receipts projector: %w", err)
	}
	return nil
}

// Reset implements Projector.
func (Receipts) Reset(ctx context.Context, tx pgx.Tx) error { return readmodels.ResetReceipts(ctx, tx) }
