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

// Apply implements Projector. The batch's writes are pipelined in one round trip.
func (Receipts) Apply(ctx context.Context, tx pgx.Tx, events []eventstore.RecordedEvent) error {
	batch := &pgx.Batch{}
	for _, e := range events {
		if !strings.HasPrefix(e.StreamID, ReceiptStreamPrefix) {
			continue
		}
		ev, err := receipt.Decode(e.Type, e.Data)
		if err != nil {
			return fmt.Errorf("receipts projector at %s: %w", e.Position, err)
		}
		switch ev := ev.(type) {
		case receipt.Generated:
			if err := readmodels.QueueGenerated(batch, ev, e.Version, e.Position); err != nil {
				return err
			}
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
