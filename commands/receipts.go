package commands

import (
	"context"
	"fmt"
	"time"

	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/journal"
)

// ReceiptStream is the stream of a receipt.
func ReceiptStream(id string) string { return receipt.Stream(id) }

// receiptAggregate folds a receipt's stream through receipt.Folder (stop 73): in time linear in
// its credits, where Evolve event by event takes time n² (a receipt may hold thousands of dust
// credits). Its state is Evolve's, event for event (TestReceiptRetryFoldsAsEvolve).
var receiptAggregate = ReceiptAggregate(nil)

// ReceiptAggregate is the receipt's aggregate (receiptAggregate) with each event that does not
// decode reported as mark(err) (nil: err), for a reader that tells those apart from the store's
// failures (the split distributor passes over such a receipt).
func ReceiptAggregate(mark func(error) error) Aggregate[receipt.State] {
	if mark == nil {
		mark = func(err error) error { return err }
	}
	return Aggregate[receipt.State]{
		Apply: func(s receipt.State, e eventstore.RecordedEvent) (receipt.State, error) {
			ev, err := receipt.Decode(e.Type, e.Data)
			if err != nil {
				return s, mark(err)
			}
			return receipt.Evolve(s, ev), nil
		},
		Fold: func(s receipt.State) Folding[receipt.State] { return receiptFolding{receipt.NewFolder(s), mark} },
	}
}

// receiptFolding is a receipt.Folder over stored events.
type receiptFolding struct {
	f    *receipt.Folder
	mark func(error) error
}

func (r receiptFolding) Apply(e eventstore.RecordedEvent) error {
	ev, err := receipt.Decode(e.Type, e.Data)
	if err != nil {
		return r.mark(err)
	}
	r.f.Apply(ev)
	return nil
}

func (r receiptFolding) State() receipt.State { return r.f.State() }

// LoadReceipt returns a receipt's state and version from its events.
func LoadReceipt(ctx context.Context, store Store, id string) (Loaded[receipt.State], error) {
	return Load(ctx, store, ReceiptStream(id), receiptAggregate, receipt.State{})
}

// GenerateReceipt appends the generation of receipt g.ReceiptID. Errors: receipt.ErrExists,
// receipt.ErrTotal, wrapped store errors.
func GenerateReceipt(ctx context.Context, store Store, now time.Time, meta eventstore.Metadata, g receipt.Generated) (receipt.State, eventstore.AppendResult, error) {
	ev, state, err := GenerationEvent(g, now, meta)
	if err != nil {
		return receipt.State{}, eventstore.AppendResult{}, err
	}
	res, err := AppendGeneration(ctx, store, ev, state, nil)
	if err != nil {
		return receipt.State{}, res, err
	}
	return state, res, nil
}

// AppendGeneration appends ev, the generation decided by GenerationEvent with state, through the
// pipeline, with the receipt's sealed webhook key (nil: none) committed in the same transaction
// (the store must then be a GenerationAppender). A receipt is generated once under a new id, so
// the first try expects no stream and skips loading one; if the stream exists after all, the
// reload decides receipt.ErrExists. Appending the same event again reports the first append's
// result. Errors: receipt.ErrExists, ErrContended, wrapped store errors.
func AppendGeneration(ctx context.Context, store Store, ev eventstore.EventData, state receipt.State, key *journal.SealedKey) (eventstore.AppendResult, error) {
	stream := ReceiptStream(state.Receipt.ReceiptID)
	decide := func(l Loaded[receipt.State]) (Decision, error) {
		if l.Version > 0 {
			return nil, receipt.ErrExists
		}
		return Decision{ev}, nil
	}
	_, res, err := execute(ctx, store, stream, receiptAggregate, receipt.State{}, decide,
		route{fresh: true, append: appendGeneration(store, stream, state.Receipt, key)})
	return res, err
}

// GenerationAppender is the store that commits a new receipt's generation with what must be
// atomic with it: the receipts read model's row, made from the generation as its command decided
// it (without decoding the event again), and the receipt's sealed webhook key. Only an event store
// that shares the read models' database can (projections.ReceiptsAtAppend, PostgreSQL); with
// another the key is saved before the append and the projector makes the row. Errors are
// eventstore.Store.Append's.
type GenerationAppender interface {
	AppendGeneration(ctx context.Context, stream string, expected eventstore.ExpectedVersion, g receipt.Generated,
		key *journal.SealedKey, ev eventstore.EventData) (eventstore.AppendResult, error)
}

// appendGeneration is the pipeline's append of generation g (one event) with its sealed key:
// handed to a GenerationAppender with g, else (no key) to Append.
func appendGeneration(store Store, stream string, g receipt.Generated, key *journal.SealedKey) func(context.Context, eventstore.ExpectedVersion, Decision) (eventstore.AppendResult, error) {
	return func(ctx context.Context, expected eventstore.ExpectedVersion, events Decision) (eventstore.AppendResult, error) {
		if ga, ok := store.(GenerationAppender); ok && len(events) == 1 {
			return ga.AppendGeneration(ctx, stream, expected, g, key, events[0])
		}
		if key != nil {
			return eventstore.AppendResult{}, fmt.Errorf("append %s: the event store cannot commit a webhook key with its receipt", stream)
		}
		return store.Append(ctx, stream, expected, events...)
	}
}

// GenerationEvent decides a receipt's generation and encodes its event without appending it
// (degraded mode journals it). Errors: receipt.ErrTotal.
func GenerationEvent(g receipt.Generated, now time.Time, meta eventstore.Metadata) (eventstore.EventData, receipt.State, error) {
	evs, err := receipt.Generate(receipt.State{}, g, now)
	if err != nil {
		return eventstore.EventData{}, receipt.State{}, err
	}
	ev, err := NewEvent(newEventID(), receipt.EventGenerated, evs[0], meta)
	if err != nil {
		return eventstore.EventData{}, receipt.State{}, err
	}
	return ev, receipt.Evolve(receipt.State{}, evs[0]), nil
}

// ReadReceiptEvents returns every event of a receipt's stream, in order. Each page is read from
// the last version read + 1 (not the count read + 1), so a gap in the versions shows as the gap
// and no event is read twice.
func ReadReceiptEvents(ctx context.Context, store Store, id string) ([]eventstore.RecordedEvent, error) {
	var out []eventstore.RecordedEvent
	next := uint64(1)
	for {
		page, err := store.ReadStream(ctx, ReceiptStream(id), next, readPage)
		if err != nil {
			return nil, err
		}
		out = append(out, page...)
		if len(page) < readPage {
			return out, nil
		}
		next = page[len(page)-1].Version + 1
	}
}

// ChangeReceipt runs decide on a receipt's current state and appends the events it returns,
// retrying from a fresh load when another writer got there first. It returns the state after
// the events. Errors: decide's, receipt.ErrNotFound, wrapped store errors.
func ChangeReceipt(ctx context.Context, store Store, id string, meta eventstore.Metadata,
	decide func(receipt.State) ([]receipt.Event, error)) (receipt.State, eventstore.AppendResult, error) {
	var after receipt.State
	_, res, err := Execute(ctx, store, ReceiptStream(id), receiptAggregate, receipt.State{}, receiptDecision(&after, meta, decide))
	return after, res, err
}

// ChangeReceiptRead is ChangeReceipt's first try on the receipt's events already read (the
// pipeline's batch form, ExecuteRead): no reload and no retry. Errors: ChangeReceipt's, the
// fold's, and eventstore.ErrWrongExpectedVersion when the receipt changed since the read (the
// caller then goes through ChangeReceipt).
func ChangeReceiptRead(ctx context.Context, store Store, id string, evs []eventstore.RecordedEvent, meta eventstore.Metadata,
	decide func(receipt.State) ([]receipt.Event, error)) (receipt.State, eventstore.AppendResult, error) {
	var after receipt.State
	_, res, err := ExecuteRead(ctx, store, ReceiptStream(id), receiptAggregate, receipt.State{}, evs, receiptDecision(&after, meta, decide))
	return after, res, err
}

// receiptDecision is decide as the pipeline's decision on a receipt that must exist; after is set
// to the state after the decided events.
func receiptDecision(after *receipt.State, meta eventstore.Metadata,
	decide func(receipt.State) ([]receipt.Event, error)) func(Loaded[receipt.State]) (Decision, error) {
	return func(l Loaded[receipt.State]) (Decision, error) {
		if !l.State.Exists {
			return nil, receipt.ErrNotFound
		}
		evs, err := decide(l.State)
		if err != nil {
			return nil, err
		}
		*after = l.State
		for _, e := range evs {
			*after = receipt.Evolve(*after, e)
		}
		return receiptEvents(evs, meta)
	}
}

// receiptEvents are the decided receipt events as events to append, with meta.
func receiptEvents(evs []receipt.Event, meta eventstore.Metadata) (Decision, error) {
	out := make(Decision, len(evs))
	for i, e := range evs {
		var err error
		if out[i], err = NewEvent(newEventID(), receipt.TypeOf(e), e, meta); err != nil {
			return nil, err
		}
	}
	return out, nil
}
