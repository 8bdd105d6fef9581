package commands

import (
	"context"

	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
)

// askedState is a receipt's state with what the service asked each of its onramp sessions for
// (AttemptStarted.AskedUSDCents, by attempt id): receipt.State does not keep it, and a processor
// success without an amount is judged against it (receipt.ProcessorUpdate.Asked).
type askedState struct {
	receipt.State
	asked map[string]int64
}

// askedAggregate folds a receipt's events as receiptAggregate does, and the asked amounts. Each
// load starts from an empty askedState, so the map is the load's own.
var askedAggregate = Aggregate[askedState]{Apply: func(s askedState, e eventstore.RecordedEvent) (askedState, error) {
	ev, err := receipt.Decode(e.Type, e.Data)
	if err != nil {
		return s, err
	}
	if a, ok := ev.(receipt.AttemptStarted); ok && a.AskedUSDCents > 0 {
		if s.asked == nil {
			s.asked = map[string]int64{}
		}
		s.asked[a.AttemptID] = a.AskedUSDCents
	}
	s.State = receipt.Evolve(s.State, ev)
	return s, nil
}}

// changeByProcessor decides the processor's report u on receipt id (receipt.DecideProcessorUpdate)
// with the amounts its sessions were asked for, and appends the events, as ChangeReceipt does.
// Errors: ChangeReceipt's.
func changeByProcessor(ctx context.Context, store Store, id string, meta eventstore.Metadata, u receipt.ProcessorUpdate) (eventstore.AppendResult, error) {
	_, res, err := Execute(ctx, store, ReceiptStream(id), askedAggregate, askedState{}, func(l Loaded[askedState]) (Decision, error) {
		if !l.State.Exists {
			return nil, receipt.ErrNotFound
		}
		u.Asked = l.State.asked
		evs, err := receipt.DecideProcessorUpdate(l.State.State, u)
		if err != nil {
			return nil, err
		}
		return receiptEvents(evs, meta)
	})
	return res, err
}
