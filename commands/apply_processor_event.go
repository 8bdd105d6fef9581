package commands

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
)

// ProcessorEvents deduplicates and keeps the processor's signed events.
type ProcessorEvents interface {
	// Record stores an event unless its id is stored; processed says whether the stored one was
	// applied already.
	Record(ctx context.Context, id, receiptID, sessionID, status string, body []byte) (processed bool, err error)
	MarkProcessed(ctx context.Context, id string) error
	// SessionShared reports whether sessionID was seen for a receipt other than receiptID, or
	// the service started it for another receipt.
	SessionShared(ctx context.Context, sessionID, receiptID string) (bool, error)
	// SessionOwner is the receipt the service started sessionID for, "" when it started none.
	SessionOwner(ctx context.Context, sessionID string) (string, error)
}

// ApplyProcessorEvent applies one signed event of the onramp processor (its signature checked by
// the caller) to its receipt.
type ApplyProcessorEvent struct {
	EventID         string
	Created         int64 // Unix seconds; 0: now
	SessionID       string
	ReceiptID       string
	AttemptID       string
	Status          string // one of receipt.ProcessorStatuses
	ErrorCode       string
	RequestID       string
	TransactionHash string
	WalletAddress   string
	SourceAmountUSD string // "" when not given
	Body            []byte // the signed body, kept with the event
	Meta            eventstore.Metadata
}

// ProcessorEventApplied says what became of a processor event.
type ProcessorEventApplied struct {
	Duplicate bool // a replay of an event applied before: nothing done
	Stored    bool // its receipt is unknown, or its status one this version does not act on: kept, nothing applied
	// Unhandled is the status of an event kept but not acted on (a refund, a dispute, a status
	// the processor added): the caller tells an operator.
	Unhandled string
	Result    eventstore.AppendResult
}

// ApplyProcessorEventHandler applies processor events.
type ApplyProcessorEventHandler struct {
	store  Store
	events ProcessorEvents
	clock  judgeClock // the database's with JudgedBy (reconcile_onramp_clock.go)
}

// NewApplyProcessorEventHandler returns the handler. It panics on a nil dependency.
func NewApplyProcessorEventHandler(store Store, events ProcessorEvents, now func() time.Time) *ApplyProcessorEventHandler {
	if store == nil || events == nil || now == nil {
		panic("commands.NewApplyProcessorEventHandler: nil dependency")
	}
	return &ApplyProcessorEventHandler{store: store, events: events, clock: judgeClock{now: now}}
}

// Handle keeps the event (deduplicated by id: a replay of an applied event is a no-op), then
// applies it through the guards (DecideProcessorUpdate), with the session marked shared when the
// processor used it for another receipt too, and with the receipt the service started the
// session for (a session of another receipt pays nothing here). An event for an unknown receipt is kept and
// answered as stored, so the processor does not retry it forever; so is a signed event whose
// status this version does not act on (Unhandled: a refund, a dispute, a status the processor
// added), which was refused and lost while the processor retried it for days. The event is
// dated by its `created`, never after its arrival by the database's clock (dated, JudgedBy).
// Errors: Invalid (no id, no status or one over 64 characters, an unreadable amount), the
// database clock's, ErrContended, wrapped store errors.
func (h *ApplyProcessorEventHandler) Handle(ctx context.Context, cmd ApplyProcessorEvent) (ProcessorEventApplied, error) {
	if cmd.EventID == "" || cmd.Status == "" || len(cmd.Status) > 64 {
		return ProcessorEventApplied{}, Invalid("processor event needs an id and a data.status of " + strings.Join(receipt.ProcessorStatuses, ", "))
	}
	if !slices.Contains(receipt.ProcessorStatuses, cmd.Status) {
		return h.keepUnhandled(ctx, cmd)
	}
	processed, err := h.events.Record(ctx, cmd.EventID, cmd.ReceiptID, cmd.SessionID, cmd.Status, cmd.Body)
	if err != nil || processed {
		return ProcessorEventApplied{Duplicate: processed}, err
	}
	amount, err := dollarsToCents(cmd.SourceAmountUSD)
	if err != nil {
		return ProcessorEventApplied{}, Invalid("data.sourceAmountUsd " + err.Error())
	}
	at, err := h.dated(ctx, cmd.Created)
	if err != nil {
		return ProcessorEventApplied{}, err
	}
	u := receipt.ProcessorUpdate{SessionID: cmd.SessionID, AttemptID: cmd.AttemptID, Status: cmd.Status, ErrorCode: cmd.ErrorCode, RequestID: cmd.RequestID,
		TransactionHash: cmd.TransactionHash, Wallet: cmd.WalletAddress, SourceAmountCents: amount, SourceAmountUSD: cmd.SourceAmountUSD, At: at, SessionUnique: true}
	if cmd.SessionID != "" && cmd.ReceiptID != "" {
		shared, err := h.events.SessionShared(ctx, cmd.SessionID, cmd.ReceiptID)
		if err != nil {
			return ProcessorEventApplied{}, err
		}
		if u.SessionOwner, err = h.events.SessionOwner(ctx, cmd.SessionID); err != nil {
			return ProcessorEventApplied{}, err
		}
		u.SessionUnique = !shared
	}
	var res eventstore.AppendResult
	if cmd.ReceiptID != "" {
		meta := cmd.Meta
		meta.CausationID = cmd.EventID
		res, err = changeByProcessor(ctx, h.store, cmd.ReceiptID, meta, u)
	}
	if cmd.ReceiptID == "" || errors.Is(err, receipt.ErrNotFound) {
		return ProcessorEventApplied{Stored: true}, nil
	}
	if err != nil {
		return ProcessorEventApplied{}, err
	}
	if err := h.events.MarkProcessed(ctx, cmd.EventID); err != nil {
		return ProcessorEventApplied{}, err
	}
	return ProcessorEventApplied{Result: res}, nil
}

// keepUnhandled keeps a signed event whose status this version does not act on, once (by id),
// marked processed: nothing in it changes a receipt, and the processor stops retrying it.
func (h *ApplyProcessorEventHandler) keepUnhandled(ctx context.Context, cmd ApplyProcessorEvent) (ProcessorEventApplied, error) {
	processed, err := h.events.Record(ctx, cmd.EventID, cmd.ReceiptID, cmd.SessionID, cmd.Status, cmd.Body)
	if err != nil || processed {
		return ProcessorEventApplied{Duplicate: processed}, err
	}
	if err := h.events.MarkProcessed(ctx, cmd.EventID); err != nil {
		return ProcessorEventApplied{}, err
	}
	return ProcessorEventApplied{Stored: true, Unhandled: cmd.Status}, nil
}

// dated is when a processor event created at `created` (Unix seconds; 0: not given) is dated,
// Unix ms: its `created`, but never after its arrival, now by the handler's clock (the
// database's with JudgedBy); its arrival when it has no `created`. The report exists when it
// arrives, so what it reports was so by then, whatever the processor's clock says. Errors: the
// database clock's.
func (h *ApplyProcessorEventHandler) dated(ctx context.Context, created int64) (int64, error) {
	now, err := h.clock.read(ctx)
	if err != nil {
		return 0, err
	}
	at := now().UnixMilli()
	if created > 0 {
		at = min(at, created*1000)
	}
	return at, nil
}
