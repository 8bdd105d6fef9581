package commands

import (
	"context"
	"maps"

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

// askedAggregate folds a receipt's events as receiptAggregate does (through receipt.Folder, in
// time linear in its credits), and the asked amounts. Each load starts from an empty askedState,
// so the map is the load's own.
var askedAggregate = Aggregate[askedState]{
	Apply: func(s askedState, e eventstore.RecordedEvent) (askedState, error) {
		f := newAskedFolding(s)
		err := f.Apply(e)
		return f.State(), err
	},
	Fold: func(s askedState) Folding[askedState] { return newAskedFolding(s) },
}

// askedFolding is askedAggregate's fold in progress; it never changes the state it starts from.
type askedFolding struct {
	f     *receipt.Folder
	asked map[string]int64
}

func newAskedFolding(s askedState) *askedFolding {
	return &askedFolding{f: receipt.NewFolder(s.State), asked: maps.Clone(s.asked)}
}

func (a *askedFolding) Apply(e eventstore.RecordedEvent) error {
	ev, err := receipt.Decode(e.Type, e.Data)
	if err != nil {
		return err
	}
	if at, ok := ev.(receipt.AttemptStarted); ok && at.AskedUSDCents > 0 {
		if a.asked == nil {
			a.asked = map[string]int64{}
		}
		a.asked[at.AttemptID] = at.AskedUSDCents
	}
	a.f.Apply(ev)
	return nil
}

// State is the state so far; its map is a copy, so later events leave it as it is.
func (a *askedFolding) State() askedState {
	return askedState{State: a.f.State(), asked: maps.Clone(a.asked)}
}

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
