package commands

import (
	"context"
	"strings"
	"time"

	"github.com/rs/zerolog"

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
}

// verifyAfterCheckout bounds the verification that checkout_success starts.
const verifyAfterCheckout = 5 * time.Second

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

// Handle records the report. The browser's checkout_success is not proof of payment: it makes
// the service ask the processor (bounded; a failed verification is logged, the report stays
// recorded). Errors: Invalid (unknown event), receipt.ErrNotFound, ErrContended, wrapped store
// errors.
func (h *RecordTelemetryHandler) Handle(ctx context.Context, cmd RecordTelemetry) (TelemetryRecorded, error) {
	if !receipt.ValidTelemetry(cmd.Event) {
		return TelemetryRecorded{}, Invalid("event must be one of " + strings.Join(receipt.TelemetryEvents, ", ") + " or onramp_*")
	}
	if cmd.Code != "" {
		if _, ok := failure.Lookup(cmd.Code); !ok {
			return TelemetryRecorded{}, Invalid("code must be a failure catalog code")
		}
	}
	_, _, err := ChangeReceipt(ctx, h.store, cmd.ReceiptID, cmd.Meta, func(st receipt.State) ([]receipt.Event, error) {
		return receipt.RecordTelemetry(st, receipt.TelemetryRecorded{Event: cmd.Event, AttemptID: cmd.AttemptID, Code: cmd.Code, At: h.now().UnixMilli()})
	})
	if err != nil || cmd.Event != "checkout_success" {
		return TelemetryRecorded{}, err
	}
	vctx, cancel := context.WithTimeout(ctx, verifyAfterCheckout)
	defer cancel()
	changed, res, err := h.verify.Verify(vctx, cmd.ReceiptID)
	if err != nil {
		zerolog.Ctx(ctx).Warn().Err(err).Str("receipt_id", cmd.ReceiptID).Msg("verification after checkout_success")
	}
	if !changed {
		return TelemetryRecorded{}, nil
	}
	return TelemetryRecorded{Verified: &ReceiptChange{ReceiptID: cmd.ReceiptID, Result: res}}, nil
}
