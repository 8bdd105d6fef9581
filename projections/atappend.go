package projections

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/readmodels"
)

// Applying a receipt's generation at append time (ReceiptsAtAppend).
//
// A new receipt is the one event most commands wait on (read-your-writes), and the projector is a
// serial stage after the append's commit. So the receipts projector also applies a generation in
// the append's own transaction, together with its checkpoint, when that is exactly what the
// projector would do next: the statement moves the checkpoint to the end of the transaction only if
//
//   - no transaction older than this one is still running in this database (so no event can
//     still appear before this transaction's events: positions are transaction ids). Transaction
//     ids are shared by the whole cluster, so one still running in another database must not
//     stop this: every older id that the statement's snapshot does not see ended (those it lists
//     as running, and every id from its xmax up to this transaction's) must be found still
//     running, and in another database (one that has ended since, or a prepared transaction,
//     cannot be placed and counts as this database's),
//   - every visible event after the checkpoint is this transaction's, and
//   - every event of this transaction is a generation that came with its row,
//
// and it inserts the rows only if it moved the checkpoint. It never waits for the checkpoint's row
// lock: while a projector's transaction holds it, the projector applies these events too. The
// read-model rows and the checkpoint still commit in one transaction (exactly once), and the
// command's wait for the projector ends at once. Otherwise nothing is written and the projector
// applies the events as usual. The projector skips events at or before its checkpoint
// (Runner.apply), and Advanced tells the runner in this process about the move as soon as the
// transaction has committed.

// ReceiptsAtAppend is the PostgreSQL event store with the receipts projector's share of a new
// receipt: the append of a receipt's generation also commits its row and the projector's
// checkpoint when that is exactly what the projector would do next (above). This is the
// projection's own concern, a decorator that serve hands to the write side in place of the
// store; the store's port stays events only, and the row travels as one more explicit companion
// of the append (eventstore.CompanionAppender). Every other method is the store's, so optional
// capabilities (ReadStreams, SubscribeReadAhead, ...) stay visible through it.
type ReceiptsAtAppend struct {
	*postgres.Store
	proj   Receipts
	runner *Runner
	// applied, when set, is told how many rows each applying statement wrote (tests).
	applied func(rows int64)
}

var (
	_ eventstore.Store             = (*ReceiptsAtAppend)(nil)
	_ eventstore.CompanionAppender = (*ReceiptsAtAppend)(nil)
)

// AtAppend returns store with receipt generations applied in their append's transaction for the
// live receipts projector that runner follows (Advanced tells runner of each move). A shadow
// projector (a blue/green rebuild) applies nothing at append.
func (r Receipts) AtAppend(store *postgres.Store, runner *Runner) *ReceiptsAtAppend {
	return &ReceiptsAtAppend{Store: store, proj: r, runner: runner}
}

// Append implements eventstore.Store: a receipt's generation brings its row, made from the
// event's data. Errors: the store's, and a generation whose data does not decode.
func (a *ReceiptsAtAppend) Append(ctx context.Context, stream string, expected eventstore.ExpectedVersion, events ...eventstore.EventData) (eventstore.AppendResult, error) {
	return a.AppendWith(ctx, stream, expected, nil, events...)
}

// AppendWith implements eventstore.CompanionAppender: a receipt's generation brings its row (as
// Append) besides companions. Errors are Append's.
func (a *ReceiptsAtAppend) AppendWith(ctx context.Context, stream string, expected eventstore.ExpectedVersion,
	companions []eventstore.Companion, events ...eventstore.EventData) (eventstore.AppendResult, error) {
	if a.generation(stream, expected, events) {
		e, err := receipt.Decode(events[0].Type, events[0].Data)
		if companions, err = a.withRow(stream, events, companions, e, err); err != nil {
			return eventstore.AppendResult{}, err
		}
	}
	return a.Store.AppendWith(ctx, stream, expected, companions, events...)
}

// AppendGeneration appends ev, a new receipt's generation, with companions in its transaction
// (commands.GenerationAppender). g is the generation as its command decided it, which ev encodes:
// the row is made from g without decoding ev again (decided). Errors are Append's.
func (a *ReceiptsAtAppend) AppendGeneration(ctx context.Context, stream string, expected eventstore.ExpectedVersion,
	g receipt.Generated, companions []eventstore.Companion, ev eventstore.EventData) (eventstore.AppendResult, error) {
	events := []eventstore.EventData{ev}
	if a.generation(stream, expected, events) {
		e, err := decided(ev, g)
		if companions, err = a.withRow(stream, events, companions, e, err); err != nil {
			return eventstore.AppendResult{}, err
		}
	}
	return a.Store.AppendWith(ctx, stream, expected, companions, events...)
}

// decided is the generation that ev, decided as g, applies: g itself, unless some text of g is
// not valid UTF-8, which JSON does not keep (the projector will read another text): then ev's
// data decoded, as Append does.
func decided(ev eventstore.EventData, g receipt.Generated) (receipt.Event, error) {
	if validText(reflect.ValueOf(g)) {
		return g, nil
	}
	return receipt.Decode(ev.Type, ev.Data)
}

// generation says whether events may be a receipt's generation that the live projector applies
// at append: one generation event that can be its stream's first. The statement checks the rest
// (version 1 of its stream, a transaction of generations with their rows).
func (a *ReceiptsAtAppend) generation(stream string, expected eventstore.ExpectedVersion, events []eventstore.EventData) bool {
	return a.proj.Shadow == "" && len(events) == 1 && events[0].Type == receipt.EventGenerated &&
		strings.HasPrefix(stream, ReceiptStreamPrefix) && expected.Matches(0)
}

// withRow returns companions and the statement that applies generation e at append; decodeErr is
// e's decoding error: an event that does not decode is refused, unless it is invalid anyway (no
// id, not JSON), which the store reports. The row is the projector's own fold of e, so it is the
// one the projector would write; a row whose id is not its stream's finds no event in the
// statement's join, and nothing is applied.
func (a *ReceiptsAtAppend) withRow(stream string, events []eventstore.EventData, companions []eventstore.Companion,
	e receipt.Event, decodeErr error) ([]eventstore.Companion, error) {
	if decodeErr != nil {
		if eventstore.Validate(stream, events) != nil {
			return companions, nil
		}
		return nil, fmt.Errorf("receipts at append: %w", decodeErr)
	}
	row, err := generationRow(e, a.committed)
	if err != nil {
		return nil, err
	}
	return append(companions[:len(companions):len(companions)], row), nil
}

// committed follows an applying statement's commit: when it wrote rows, the checkpoint moved to
// end, and the runner learns of it at once.
func (a *ReceiptsAtAppend) committed(affected int64, end eventstore.Position) {
	if a.applied != nil {
		a.applied(affected)
	}
	if affected > 0 && a.runner != nil {
		a.runner.Advanced(end)
	}
}

// generationRow is the statement that applies generation e at append.
func generationRow(e receipt.Event, committed func(int64, eventstore.Position)) (eventstore.Companion, error) {
	args, err := readmodels.StateElems(readmodels.StateRow{State: receipt.Evolve(receipt.State{}, e), Version: 1, New: true})
	if err != nil {
		return eventstore.Companion{}, err
	}
	return eventstore.Companion{SQL: readmodels.ReceiptsAtAppendSQL, Args: args, Rows: true, After: true, Committed: committed}, nil
}

// validText says whether every string in v (through structs, slices, arrays, maps and pointers)
// is valid UTF-8, so that v's JSON decodes to v again.
func validText(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.String:
		return utf8.ValidString(v.String())
	case reflect.Struct:
		for i := range v.NumField() {
			if !validText(v.Field(i)) {
				return false
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if !validText(v.Index(i)) {
				return false
			}
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			if !validText(it.Key()) || !validText(it.Value()) {
				return false
			}
		}
	case reflect.Pointer, reflect.Interface:
		return v.IsNil() || validText(v.Elem())
	}
	return true
}
