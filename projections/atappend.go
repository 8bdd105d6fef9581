package projections

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/journal"
	"github.com/payledger/payledger/internal/secrets"
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

// ReceiptsAtAppend is the PostgreSQL event store with what must commit in a new receipt's append
// transaction: its read-model row with the receipts projector's checkpoint when that is exactly
// what the projector would do next (above), and its sealed webhook key. It is the one decorator
// of the PostgreSQL adapter that writes rows inside an append, and it exists for two reasons that
// only a database shared by events and read models can serve: read-your-writes for the receipt
// every order waits on (no projector round trip), and a webhook key that exists exactly when its
// receipt does (a secret, so never part of an event). Its methods are typed (a generation and a
// sealed key); what it writes goes to the adapter as its Attachment (a group commit writes the
// attachments of all its appends in one statement per table). The event-store port stays events
// only; the use cases reach AppendGeneration through an interface they declare
// (commands.GenerationAppender). Every other method is the store's, so optional capabilities
// (ReadStreams, SubscribeReadAhead, ...) stay visible through it.
type ReceiptsAtAppend struct {
	AttachingStore
	proj   Receipts
	runner *Runner
	// handoff, when set, receives each generation's state as decided, for the receipt.created
	// projector of this process (HandsTo).
	handoff *Generations
	// applied, when set, is told how many rows each applying statement wrote (tests).
	applied func(rows int64)
}

var _ eventstore.Store = (*ReceiptsAtAppend)(nil)

// Attachment is what an append carries into its transaction besides its events: the PostgreSQL
// adapter's Attachment (eventstore/postgres), the same interface literal declared here, so that
// projections depends on the event-store port only. all holds the transaction's attachments.
type Attachment = interface {
	QueueAll(batch *pgx.Batch, all []any) (committed func(end eventstore.Position), err error)
}

// AttachingStore is the event store ReceiptsAtAppend decorates (eventstore/postgres.Store
// implements it): the port, appends whose transaction carries an Attachment, and the optional
// capabilities that the service's readers and processes look for on the store they are given,
// which stay visible through the decorator.
type AttachingStore interface {
	eventstore.Store
	FilteredSource
	ReadAheadSource
	txLogReader
	AppendAttached(ctx context.Context, stream string, expected eventstore.ExpectedVersion, att Attachment, events ...eventstore.EventData) (eventstore.AppendResult, error)
	AppendStreams(ctx context.Context, appends []eventstore.StreamAppend) ([]eventstore.AppendResult, []error)
	ReadStreams(ctx context.Context, streams []string) (map[string][]eventstore.RecordedEvent, error)
}

// AtAppend returns store with receipt generations applied in their append's transaction for the
// live receipts projector that runner follows (Advanced tells runner of each move). A shadow
// projector (a blue/green rebuild) applies nothing at append.
func (r Receipts) AtAppend(store AttachingStore, runner *Runner) *ReceiptsAtAppend {
	return &ReceiptsAtAppend{AttachingStore: store, proj: r, runner: runner}
}

// HandsTo has a hand each new receipt's state, as its command decided it, over to g (the
// receipt.created projector's Decided), and returns a.
func (a *ReceiptsAtAppend) HandsTo(g *Generations) *ReceiptsAtAppend {
	a.handoff = g
	return a
}

// Append implements eventstore.Store: a receipt's generation brings its row, made from the
// event's data. Errors: the store's, and a generation whose data does not decode.
func (a *ReceiptsAtAppend) Append(ctx context.Context, stream string, expected eventstore.ExpectedVersion, events ...eventstore.EventData) (eventstore.AppendResult, error) {
	var att *atAppend
	if a.generation(stream, expected, events) {
		e, err := receipt.Decode(events[0].Type, events[0].Data)
		if att, err = a.withRow(stream, events, nil, e, err); err != nil {
			return eventstore.AppendResult{}, err
		}
	}
	return a.appendAttached(ctx, stream, expected, att, events)
}

// AppendGeneration appends ev, a new receipt's generation, with its sealed webhook key (nil:
// none) in the same transaction (commands.GenerationAppender). g is the generation as its
// command decided it, which ev encodes (its data is json.Marshal(g), as commands.NewEvent writes
// it): the row is made from g without decoding ev again (decided), and its state's JSON takes
// ev's data as its receipt's. Errors are Append's.
func (a *ReceiptsAtAppend) AppendGeneration(ctx context.Context, stream string, expected eventstore.ExpectedVersion,
	g receipt.Generated, key *journal.SealedKey, ev eventstore.EventData) (eventstore.AppendResult, error) {
	events := []eventstore.EventData{ev}
	att := &atAppend{key: key}
	if a.generation(stream, expected, events) {
		e, asIs, err := decided(ev, g)
		if att, err = a.withRow(stream, events, key, e, err); err != nil {
			return eventstore.AppendResult{}, err
		}
		if asIs && att.row != nil {
			att.row.ReceiptJSON = ev.Data // json.Marshal(g): the row's state does not encode it again
		}
	}
	return a.appendAttached(ctx, stream, expected, att, events)
}

// appendAttached appends events with att, handing the generation's state over (HandsTo) before
// the append, as the projector may read the event before the append returns; a failed append
// takes it back.
func (a *ReceiptsAtAppend) appendAttached(ctx context.Context, stream string, expected eventstore.ExpectedVersion,
	att *atAppend, events []eventstore.EventData) (eventstore.AppendResult, error) {
	if att != nil && att.row != nil {
		a.handoff.put(events[0].ID, att.row.State)
	}
	res, err := a.AttachingStore.AppendAttached(ctx, stream, expected, att.attachment(), events...)
	if err != nil && att != nil && att.row != nil {
		a.handoff.drop(events[0].ID)
	}
	return res, err
}

// decided is the generation that ev, decided as g, applies: g itself (asIs), unless some text of
// g is not valid UTF-8, which JSON does not keep (the projector will read another text): then ev's
// data decoded, as Append does. json.Marshal writes every invalid byte as the escape \ufffd, so
// data it wrote without that escape holds g's text as is (a text with those six characters of its
// own is decoded too, needlessly but correctly); this scan replaced a reflective walk of g that
// was 0.7% of the service's CPU per order (issue 38).
func decided(ev eventstore.EventData, g receipt.Generated) (e receipt.Event, asIs bool, err error) {
	if ev.Marshaled && !bytes.Contains(ev.Data, []byte(`\ufffd`)) {
		return g, true, nil
	}
	e, err = receipt.Decode(ev.Type, ev.Data)
	return e, false, err
}

// generation says whether events may be a receipt's generation that the live projector applies
// at append: one generation event that can be its stream's first. The statement checks the rest
// (version 1 of its stream, a transaction of generations with their rows).
func (a *ReceiptsAtAppend) generation(stream string, expected eventstore.ExpectedVersion, events []eventstore.EventData) bool {
	return a.proj.Shadow == "" && len(events) == 1 && events[0].Type == receipt.EventGenerated &&
		strings.HasPrefix(stream, ReceiptStreamPrefix) && expected.Matches(0)
}

// withRow returns the attachment of key and the row of generation e; decodeErr is e's decoding
// error: an event that does not decode is refused, unless it is invalid anyway (no id, not JSON),
// which the store reports. The row is the projector's own fold of e, so it is the one the
// projector would write; a row whose id is not its stream's finds no event in the statement's
// join, and nothing is applied.
func (a *ReceiptsAtAppend) withRow(stream string, events []eventstore.EventData, key *journal.SealedKey,
	e receipt.Event, decodeErr error) (*atAppend, error) {
	if decodeErr != nil {
		if eventstore.Validate(stream, events) != nil {
			return &atAppend{key: key}, nil
		}
		return nil, fmt.Errorf("receipts at append: %w", decodeErr)
	}
	row := generationRow(e)
	return &atAppend{key: key, row: &row, committed: a.committed}, nil
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

// generationRow is the receipts row of generation e, applied at append.
func generationRow(e receipt.Event) readmodels.StateRow {
	return readmodels.StateRow{State: receipt.Evolve(receipt.State{}, e), Version: 1, New: true}
}

// atAppend is one append's share of the decorator's writes (Attachment): a new
// receipt's row, its sealed webhook key, or both.
type atAppend struct {
	row       *readmodels.StateRow
	key       *journal.SealedKey
	committed func(affected int64, end eventstore.Position)
}

// attachment is a as the adapter takes it: nil when it writes nothing.
func (a *atAppend) attachment() Attachment {
	if a == nil || (a.row == nil && a.key == nil) {
		return nil
	}
	return a
}

// QueueAll implements Attachment: the rows of one transaction in one applying
// statement (which checks that the transaction holds exactly their generations), after the
// keys in one insert.
func (a *atAppend) QueueAll(batch *pgx.Batch, all []any) (func(eventstore.Position), error) {
	// Sized for all at once: a row is about 1 KiB, which growing the slice would copy again.
	rows, committed := make([]readmodels.StateRow, 0, len(all)), make([]func(int64, eventstore.Position), 0, len(all))
	ids, nonces, sealed := make([]string, 0, len(all)), make([][]byte, 0, len(all)), make([][]byte, 0, len(all))
	for _, att := range all {
		x, ok := att.(*atAppend)
		if !ok {
			return nil, fmt.Errorf("receipts at append: attachment %T is not this decorator's", att)
		}
		if x.key != nil {
			ids, nonces, sealed = append(ids, x.key.ReceiptID), append(nonces, x.key.Nonce), append(sealed, x.key.Sealed)
		}
		if x.row != nil {
			rows, committed = append(rows, *x.row), append(committed, x.committed)
		}
	}
	if len(ids) > 0 {
		secrets.QueueSealedKeys(batch, ids, nonces, sealed)
	}
	if len(rows) == 0 {
		return nil, nil
	}
	var affected int64
	if err := readmodels.QueueReceiptsAtAppend(batch, rows, func(n int64) { affected = n }); err != nil {
		return nil, err
	}
	return func(end eventstore.Position) {
		for _, c := range committed {
			if c != nil {
				c(affected, end)
			}
		}
	}, nil
}
