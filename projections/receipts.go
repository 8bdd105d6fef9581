package projections

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/jackc/pgx/v5"

	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/readmodels"
)

// ReceiptStreamPrefix starts the stream id of every receipt.
const ReceiptStreamPrefix = receipt.StreamPrefix

// Receipts keeps the receipts read model (lists, reads, status) and the webhook outbox: a status
// change of a receipt with a webhook URL queues a notification in the same transaction.
type Receipts struct {
	// Notify, when set, is called after each committed batch that queued notifications (after
	// every batch unless the projector was made by NewReceipts).
	Notify func()
	// Shadow, when set, names the table of a blue/green rebuild: the projector writes there, under
	// its own checkpoint name, and queues no notifications (it replays history).
	Shadow string
	// EventLog, when set, records the merchant's event log: every status change (its payload
	// readmodels.ReceiptWebhookOf), transfer seen and split distribution, in this transaction,
	// fanned out to the merchant's webhook endpoints (readmodels.QueueEvents). Unset: no event
	// log (tests of other parts).
	EventLog bool

	queued *atomic.Bool // set when a batch queued a notification
}

// NewReceipts returns the live receipts projector; notify wakes the webhook dispatcher after a
// batch that queued notifications.
func NewReceipts(notify func()) Receipts { return Receipts{Notify: notify, queued: new(atomic.Bool)} }

// LiveReceipts is the receipts projector as the live runner must run it, with the merchants'
// event log: whichever process leads the projector (serve, or `projections rebuild` bringing it to
// the log's head while serve's leader is away) records the same rows, or the events it applies
// never reach the merchants' webhook endpoints.
func LiveReceipts(notify func()) Receipts {
	r := NewReceipts(notify)
	r.EventLog = true
	return r
}

// LiveTable is the receipts read model that reads use.
const LiveTable = readmodels.ReceiptsTable

func (r Receipts) table() string {
	if r.Shadow != "" {
		return r.Shadow
	}
	return LiveTable
}

// Committed implements the runner's post-commit hook.
func (r Receipts) Committed() {
	if r.Notify != nil && (r.queued == nil || r.queued.Swap(false)) {
		r.Notify()
	}
}

var _ PipelinedProjector = Receipts{}

// Name implements Projector.
func (r Receipts) Name() string {
	if r.Shadow != "" {
		return "receipts@" + r.Shadow
	}
	return "receipts"
}

// Apply implements Projector.
func (r Receipts) Apply(ctx context.Context, tx pgx.Tx, events []eventstore.RecordedEvent) error {
	reads := &pgx.Batch{}
	queueWrites := r.QueueApply(events, reads)
	if reads.Len() > 0 {
		if err := tx.SendBatch(ctx, reads).Close(); err != nil {
			return fmt.Errorf("receipts projector: load states: %w", err)
		}
	}
	writes := &pgx.Batch{}
	if err := queueWrites(writes); err != nil || writes.Len() == 0 {
		return err
	}
	if err := tx.SendBatch(ctx, writes).Close(); err != nil {
		return fmt.Errorf("receipts projector: %w", err)
	}
	return nil
}

// QueueApply implements PipelinedProjector: it queues the read of the stored states of the
// batch's receipts; the returned function folds the events into them with receipt.Folder (the
// aggregate's own fold, Evolve's state) and queues the writes, which the runner sends with its checkpoint.
func (r Receipts) QueueApply(events []eventstore.RecordedEvent, reads *pgx.Batch) func(writes *pgx.Batch) error {
	var ids []string
	seen := map[string]bool{}
	for _, e := range events {
		if id, ok := strings.CutPrefix(e.StreamID, ReceiptStreamPrefix); ok && !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return func(*pgx.Batch) error { return nil }
	}
	states, versions := map[string]receipt.State{}, map[string]uint64{}
	mark := new(eventstore.Position)
	if onlyFirstEvents(events) {
		// Only new receipts: no stored state can exist beyond the checkpoint, and a generation is
		// not a status change, so neither states nor the replay mark need reading.
		return func(writes *pgx.Batch) error { return r.fold(events, ids, states, versions, *mark, writes) }
	}
	readmodels.QueueLoadStates(reads, r.table(), ids, states, versions)
	queueReplayMark(reads, Receipts{}.Name(), mark)
	return func(writes *pgx.Batch) error { return r.fold(events, ids, states, versions, *mark, writes) }
}

// onlyFirstEvents says whether every receipt event of the batch is its stream's first.
func onlyFirstEvents(events []eventstore.RecordedEvent) bool {
	for _, e := range events {
		if strings.HasPrefix(e.StreamID, ReceiptStreamPrefix) && e.Version != 1 {
			return false
		}
	}
	return true
}

// statuses are the loaded receipts' statuses before a batch.
func statuses(states map[string]receipt.State) map[string]receipt.Status {
	before := make(map[string]receipt.Status, len(states))
	for id, st := range states {
		before[id] = st.Status
	}
	return before
}

// eventFacts adds what one event records besides its receipt's state (fo's, after the event): the
// merchants' event-log entries (not for history being replayed) and the deposit credit it makes.
// The state is read at once (Folder.Peek), not kept.
func (r Receipts) eventFacts(fo *receipt.Folder, ev receipt.Event, e eventstore.RecordedEvent, replayed bool,
	endpointEvents *[]readmodels.NewEvent, credits *[]readmodels.DepositCredit) {
	st := fo.Peek()
	switch d := ev.(type) {
	case receipt.SplitDistributed:
		if !replayed {
			*endpointEvents = append(*endpointEvents, r.splitEvent(st, d, e))
		}
	case receipt.DepositTransferSeen:
		*credits = append(*credits, readmodels.DepositCredit{TransactionHash: d.TransactionHash, LogIndex: d.LogIndex, ReceiptID: st.Receipt.ReceiptID})
		if !replayed {
			*endpointEvents = append(*endpointEvents, detectedEvent(fo, d, e))
		}
	case receipt.RefundProcessed:
		if !replayed {
			*endpointEvents = append(*endpointEvents, refundEvent(st, d, e))
		}
	case receipt.RefundRefused:
		if !replayed {
			*endpointEvents = append(*endpointEvents, refundFailedEvent(st, d, e))
		}
	}
}

// folded is what folding a batch's events into the loaded states found, besides the states.
type folded struct {
	replayed       map[string]bool // receipts whose last change in this batch is history being replayed
	firstPos       map[string]eventstore.Position
	dirty          map[string]bool
	endpointEvents []readmodels.NewEvent
	credits        []readmodels.DepositCredit // transfers to deposit addresses: which receipt each credits
}

// fold applies events to the loaded states and queues the writes.
func (r Receipts) fold(events []eventstore.RecordedEvent, ids []string, states map[string]receipt.State, versions map[string]uint64,
	mark eventstore.Position, writes *pgx.Batch) error {
	before := statuses(states)
	f, err := r.evolveAll(events, states, versions, mark)
	if err != nil {
		return err
	}
	if r.Shadow == "" {
		readmodels.QueueDepositCredits(writes, f.credits)
	}
	rows, notify, changed := r.stateChanges(ids, states, versions, before, f)
	if err := r.queueEndpointEvents(writes, f.endpointEvents); err != nil {
		return err
	}
	if err := readmodels.QueueStates(writes, r.table(), rows); err != nil {
		return err
	}
	r.queueNotifications(writes, states, versions, notify)
	readmodels.QueueReceiptsChanged(writes, changed)
	return nil
}

// evolveAll folds the batch's events, past the stored versions, into states and versions. Each
// receipt's events are folded onto its stored state through one receipt.Folder (stop 73): in time
// linear in its credits, where Evolve event by event copied them all for each credit (a batch of
// a receipt's 1,000 dust credits). The projector stores a state per batch, so a receipt's whole
// stream is folded here only when it fits in one batch; across batches each folds onto the state
// the last one stored.
func (r Receipts) evolveAll(events []eventstore.RecordedEvent, states map[string]receipt.State, versions map[string]uint64,
	mark eventstore.Position) (*folded, error) {
	f := &folded{replayed: map[string]bool{}, firstPos: map[string]eventstore.Position{}, dirty: map[string]bool{}}
	folders := map[string]*receipt.Folder{}
	defer func() { // also on an error: states then hold what was folded, as before
		for id, fo := range folders {
			states[id] = fo.State()
		}
	}()
	for _, e := range events {
		id, ok := strings.CutPrefix(e.StreamID, ReceiptStreamPrefix)
		if !ok || e.Version <= versions[id] {
			continue
		}
		ev, err := receipt.Decode(e.Type, e.Data)
		if err != nil {
			return nil, fmt.Errorf("receipts projector: %w", undecodable(e, err))
		}
		if e.Version == 1 {
			f.firstPos[id] = e.Position
		}
		fo := folders[id]
		if fo == nil {
			fo = receipt.NewFolder(states[id])
			folders[id] = fo
		}
		fo.Apply(ev)
		versions[id], f.dirty[id] = e.Version, true
		f.replayed[id] = !mark.Less(e.Position)
		r.eventFacts(fo, ev, e, f.replayed[id], &f.endpointEvents, &f.credits)
	}
	return f, nil
}

// stateChanges returns the rows to write, the receipts whose status change is owed a webhook,
// and those that existed before this batch (status caches may hold them); it adds the status
// changes to f's event-log entries.
func (r Receipts) stateChanges(ids []string, states map[string]receipt.State, versions map[string]uint64,
	before map[string]receipt.Status, f *folded) (rows []readmodels.StateRow, notify, changed []string) {
	for _, id := range ids {
		if !f.dirty[id] || !states[id].Exists {
			continue
		}
		if _, existed := before[id]; existed && r.Shadow == "" {
			changed = append(changed, id)
		}
		st := states[id]
		old, existed := before[id]
		rows = append(rows, readmodels.StateRow{State: st, Version: versions[id], First: f.firstPos[id], New: !existed})
		if !existed { // generated in this batch: generation itself is not a status change
			old = receipt.StatusGenerated
		}
		if old != st.Status && st.Receipt.WebhookURL != "" && !f.replayed[id] && r.Shadow == "" {
			notify = append(notify, id)
		}
		if old != st.Status && !f.replayed[id] {
			f.endpointEvents = append(f.endpointEvents, r.statusEvent(st, versions[id]))
		}
	}
	return rows, notify, changed
}

// queueEndpointEvents queues the merchants' event-log entries (live projector with an event log
// only) and marks the batch as one that wakes the dispatcher.
func (r Receipts) queueEndpointEvents(writes *pgx.Batch, endpointEvents []readmodels.NewEvent) error {
	if !r.EventLog || r.Shadow != "" {
		return nil
	}
	if err := readmodels.QueueEvents(writes, endpointEvents); err != nil {
		return err
	}
	if len(endpointEvents) > 0 && r.queued != nil {
		r.queued.Store(true) // wakes the dispatcher's endpoint worker
	}
	return nil
}

// queueNotifications queues the webhook notifications of the receipts in notify.
func (r Receipts) queueNotifications(writes *pgx.Batch, states map[string]receipt.State, versions map[string]uint64, notify []string) {
	for _, id := range notify {
		st := states[id]
		readmodels.QueueNotification(writes, id, st.Receipt.Merchant, st.Receipt.WebhookURL, readmodels.StatusChangeKey(st, versions[id]))
		if r.queued != nil {
			r.queued.Store(true)
		}
	}
}

// Reset implements Projector.
func (r Receipts) Reset(ctx context.Context, tx pgx.Tx) error {
	return readmodels.ResetReceipts(ctx, tx, r.table())
}
