package projections

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/readmodels"
)

// Applying a receipt's generation at append time.
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

// AtAppend returns, for the live receipts projector followed by runner, the companions that
// apply an append's receipt generations in the append's transaction when the projector is
// caught up (postgres.Store.SetAtAppend). Other events bring none.
func (r Receipts) AtAppend(runner *Runner) func(ctx context.Context, recs []eventstore.RecordedEvent, appended []eventstore.EventData) ([]eventstore.Companion, error) {
	return func(ctx context.Context, recs []eventstore.RecordedEvent, appended []eventstore.EventData) ([]eventstore.Companion, error) {
		if r.Shadow != "" || len(recs) != 1 || recs[0].Version != 1 || recs[0].Type != receipt.EventGenerated ||
			!strings.HasPrefix(recs[0].StreamID, ReceiptStreamPrefix) {
			return nil, nil
		}
		e := recs[0]
		// The projector's own fold of the event, so the row is the one it would write. The
		// command that decided the event usually hands it over decoded (it decodes from its data
		// to the same value: TestDecidedGenerationFoldsLikeItsData).
		var ev receipt.Event
		if len(appended) == 1 && appended[0].ID == e.ID {
			// Text that is not valid UTF-8 comes back from JSON changed: decode that one.
			if g, ok := appended[0].Decoded.(receipt.Generated); ok && validText(reflect.ValueOf(g)) {
				ev = g
			}
		}
		if ev == nil {
			var err error
			if ev, err = receipt.Decode(e.Type, e.Data); err != nil {
				return nil, fmt.Errorf("receipts at append: %w", err)
			}
		}
		// A row whose id is not its stream's finds no event in the statement's join: not applied.
		args, err := readmodels.StateElems(readmodels.StateRow{State: receipt.Evolve(receipt.State{}, ev), Version: 1, New: true})
		if err != nil {
			return nil, err
		}
		return []eventstore.Companion{{SQL: readmodels.ReceiptsAtAppendSQL, Args: args, Rows: true, After: true,
			Committed: func(affected int64, end eventstore.Position) {
				if affected > 0 {
					runner.Advanced(end)
				}
			}}}, nil
	}
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
