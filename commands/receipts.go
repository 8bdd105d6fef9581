package commands

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
)

// ReceiptStream is the stream of a receipt.
func ReceiptStream(id string) string { return "receipt-" + id }

var receiptAggregate = Aggregate[receipt.State]{Apply: func(s receipt.State, e eventstore.RecordedEvent) (receipt.State, error) {
	ev, err := receipt.Decode(e.Type, e.Data)
	if err != nil {
		return s, err
	}
	return receipt.Evolve(s, ev), nil
}}

// LoadReceipt returns a receipt's state and version from its events.
func LoadReceipt(ctx context.Context, store Store, id string) (Loaded[receipt.State], error) {
	return Load(ctx, store, ReceiptStream(id), receiptAggregate, receipt.State{})
}

// GenerateReceipt appends the generation of receipt g.ReceiptID. Errors: receipt.ErrExists,
// receipt.ErrTotal, wrapped store errors.
func GenerateReceipt(ctx context.Context, store Store, now time.Time, meta eventstore.Metadata, g receipt.Generated) (receipt.State, eventstore.AppendResult, error) {
	var state receipt.State
	_, res, err := Execute(ctx, store, ReceiptStream(g.ReceiptID), receiptAggregate, receipt.State{},
		func(l Loaded[receipt.State]) (Decision, error) {
			evs, err := receipt.Generate(l.State, g, now)
			if err != nil {
				return nil, err
			}
			state = receipt.Evolve(l.State, evs[0])
			ev, err := NewEvent(uuid.New(), receipt.EventGenerated, evs[0], meta)
			return Decision{ev}, err
		})
	return state, res, err
}

// ReadReceiptEvents returns every event of a receipt's stream, in order.
func ReadReceiptEvents(ctx context.Context, store Store, id string) ([]eventstore.RecordedEvent, error) {
	var out []eventstore.RecordedEvent
	for {
		page, err := store.ReadStream(ctx, ReceiptStream(id), uint64(len(out))+1, readPage)
		if err != nil {
			return nil, err
		}
		out = append(out, page...)
		if len(page) < readPage {
			return out, nil
		}
	}
}
