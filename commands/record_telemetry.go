package commands

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/payledger/payledger/domain/failure"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
)

// RecordTelemetry records a report of the payment page's browser (receipt.TelemetryEvents or
// onramp_*). Telemetry never changes status.
type RecordTelemetry struct {
	ReceiptID string
	Event     string
	AttemptID string
	Code      string // optional: the failure-catalog code the page showed the customer
	Meta      eventstore.Metadata
}

// TelemetryRecorded is what recording a report did: checkout_success also verifies the onramp
// attempt with the processor, which may change the receipt (Verified).
type TelemetryRecorded struct {
	Verified *ReceiptChange // nil unless the verification changed the receipt
	// Unverified is why the verification after checkout_success failed (nil: it did not); the
	// report is recorded all the same, and the next reconciliation verifies again.
	Unverified error
}

// verifyAfterCheckout bounds the verification that checkout_success starts.
const verifyAfterCheckout = 5 * time.Second

// MaxTelemetryPerHour is how many reports one receipt takes in a clock hour (DESIGN 9): the
// route is public, and each report is stored.
const MaxTelemetryPerHour = 20

// MaxTelemetryAttemptID bounds a report's attemptId: the service's are 36 characters, a
// processor-opened one "att_" and the session's id. The route is public and each report stored.
const MaxTelemetryAttemptID = 128

// ErrTelemetryLimited refuses a report past MaxTelemetryPerHour.
var ErrTelemetryLimited = errors.New("this receipt has taken its telemetry reports for this hour")

// TelemetryHours is how many clock hours after its creation a receipt takes telemetry, and a
// history shows it: the payment page reports while the receipt is open, within its payment
// window (default 1 h + 24 h monitoring). Later reports were stored for ever and never read: the
// route is public, so 20 an hour per known receipt id grew the event store without end.
const TelemetryHours = 48

// ErrTelemetryClosed refuses a report past TelemetryHours: a lifetime bound, which never lifts
// (403, as the quotes' and onramp starts' lifetime bounds).
var ErrTelemetryClosed = &Refusal{Kind: KindForbidden, Code: "forbidden",
	Message: "A receipt takes telemetry reports only in the " + strconv.Itoa(TelemetryHours) + " hours after its creation"}

// TelemetryStream is the stream of receipt id's reports of the clock hour of at. Telemetry is
// kept apart from the receipt's stream, so that no command replays it and nobody can make a
// receipt's history arbitrarily long; one stream per hour, so that the limit is counted by
// reading at most MaxTelemetryPerHour events.
func TelemetryStream(id string, at time.Time) string {
	return "telemetry-" + id + "-" + strconv.FormatInt(at.Unix()/3600, 10)
}

// RecordTelemetryHandler records telemetry.
type RecordTelemetryHandler struct {
	store  Store
	verify *ReconcileOnrampHandler
	now    func() time.Time
}

// NewRecordTelemetryHandler returns the handler; verify checks an onramp attempt with the
// processor after checkout_success. It panics on a nil dependency.
func NewRecordTelemetryHandler(store Store, verify *ReconcileOnrampHandler, now func() time.Time) *RecordTelemetryHandler {
	if store == nil || verify == nil || now == nil {
		panic("commands.NewRecordTelemetryHandler: nil dependency")
	}
	return &RecordTelemetryHandler{store: store, verify: verify, now: now}
}

// record appends the report to the receipt's telemetry stream of this hour, within the limit.
// Errors: receipt.ErrNotFound, ErrTelemetryClosed (past TelemetryHours), ErrTelemetryLimited,
// ErrContended, wrapped store errors.
func (h *RecordTelemetryHandler) record(ctx context.Context, cmd RecordTelemetry) error {
	loaded, err := LoadReceipt(ctx, h.store, cmd.ReceiptID)
	if err != nil {
		return err
	}
	now := h.now()
	evs, err := receipt.RecordTelemetry(loaded.State,
		receipt.TelemetryRecorded{Event: cmd.Event, AttemptID: cmd.AttemptID, Code: cmd.Code, At: now.UnixMilli()})
	if err != nil {
		return err
	}
	// The hours are counted as the history lists them: the creation's clock hour is the first.
	if now.Unix()/3600 >= loaded.State.Receipt.CreatedAt/1000/3600+TelemetryHours {
		return ErrTelemetryClosed
	}
	return AppendTelemetry(ctx, h.store, cmd.ReceiptID, now, evs, cmd.Meta)
}

// AppendTelemetry appends evs (decided by receipt.RecordTelemetry) to the receipt's telemetry
// stream of the hour of now, within MaxTelemetryPerHour, through the pipeline (concurrent reports
// of one receipt: each try re-counts). Errors: ErrTelemetryLimited, ErrContended, wrapped store
// errors.
func AppendTelemetry(ctx context.Context, store Store, receiptID string, now time.Time, evs []receipt.Event, meta eventstore.Metadata) error {
	data, err := receiptEvents(evs, meta)
	if err != nil {
		return err
	}
	_, _, err = Execute(ctx, store, TelemetryStream(receiptID, now), telemetryCount, 0, func(l Loaded[int]) (Decision, error) {
		if l.State >= MaxTelemetryPerHour {
			// The stream is the clock hour's: the next hour's has room.
			return nil, receipt.NewLimited(ErrTelemetryLimited, receipt.NextHour(now.UnixMilli()))
		}
		return data, nil
	})
	return err
}

// telemetryCount folds a telemetry stream into the number of its reports.
var telemetryCount = Aggregate[int]{Apply: func(n int, _ eventstore.RecordedEvent) (int, error) { return n + 1, nil }}

// Handle records the report. The browser's checkout_success is not proof of payment: it makes
// the service ask the processor (bounded; a failed verification is logged, the report stays
// recorded). Errors: Invalid (unknown event, an attemptId over MaxTelemetryAttemptID), receipt.ErrNotFound, ErrTelemetryClosed, ErrTelemetryLimited,
// ErrContended, wrapped store errors.
func (h *RecordTelemetryHandler) Handle(ctx context.Context, cmd RecordTelemetry) (TelemetryRecorded, error) {
	if !receipt.ValidTelemetry(cmd.Event) {
		return TelemetryRecorded{}, Invalid("event must be one of " + strings.Join(receipt.TelemetryEvents, ", ") + " or onramp_*")
	}
	if len(cmd.AttemptID) > MaxTelemetryAttemptID {
		return TelemetryRecorded{}, Invalid("attemptId must be at most " + strconv.Itoa(MaxTelemetryAttemptID) + " characters")
	}
	if cmd.Code != "" {
		if _, ok := failure.Lookup(cmd.Code); !ok {
			return TelemetryRecorded{}, Invalid("code must be a failure catalog code")
		}
	}
	err := h.record(ctx, cmd)
	if err != nil || cmd.Event != "checkout_success" {
		return TelemetryRecorded{}, err
	}
	vctx, cancel := context.WithTimeout(ctx, verifyAfterCheckout)
	defer cancel()
	changed, res, err := h.verify.Verify(vctx, cmd.ReceiptID)
	if !changed {
		return TelemetryRecorded{Unverified: err}, nil
	}
	return TelemetryRecorded{Verified: &ReceiptChange{ReceiptID: cmd.ReceiptID, Result: res}}, nil
}
