package app

import (
	"context"
	"errors"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/commands"
)

// logged is the logging decorator: it runs the handler and has note log what its outcome says,
// so that a use case's file needs no logger. The logger is the context's: the request's (with
// its correlation id) or the background worker's.
type logged[C, R any] struct {
	next commands.Handler[C, R]
	note func(log *zerolog.Logger, cmd C, out R, err error)
}

// logOutcomes wraps h in the logging decorator.
func logOutcomes[C, R any](h commands.Handler[C, R], note func(log *zerolog.Logger, cmd C, out R, err error)) commands.Handler[C, R] {
	return logged[C, R]{next: h, note: note}
}

// Handle runs the handler and logs its outcome.
func (h logged[C, R]) Handle(ctx context.Context, cmd C) (R, error) {
	out, err := h.next.Handle(ctx, cmd)
	h.note(zerolog.Ctx(ctx), cmd, out, err)
	return out, err
}

// The notes: what an outcome tells an operator that the answer does not. A refusal or an
// internal error needs none (transport logs internal errors, the caller acts on refusals).

func noteStartOnramp(log *zerolog.Logger, _ commands.StartOnramp, _ commands.OnrampStarted, err error) {
	if errors.Is(err, commands.ErrProcessorUnavailable) { // the processor's own error, wrapped
		log.Error().Err(err).Msg("onramp session")
	}
}

func noteTelemetry(log *zerolog.Logger, cmd commands.RecordTelemetry, out commands.TelemetryRecorded, _ error) {
	if out.Unverified != nil {
		log.Warn().Err(out.Unverified).Str("receipt_id", cmd.ReceiptID).Msg("verification after checkout_success")
	}
}

func noteProcessorEvent(log *zerolog.Logger, cmd commands.ApplyProcessorEvent, out commands.ProcessorEventApplied, err error) {
	switch {
	case err != nil || !out.Stored:
	case out.Unhandled != "": // a refund or a dispute of a known receipt: kept for the operator, not unknown
		log.Warn().Str("processor_event", cmd.EventID).Str("receipt_id", cmd.ReceiptID).Str("processor_status", out.Unhandled).
			Msg("processor event of a status this version does not act on stored")
	default:
		log.Warn().Str("processor_event", cmd.EventID).Str("receipt_id", cmd.ReceiptID).Msg("processor event for an unknown receipt stored")
	}
}

func noteReconcile(log *zerolog.Logger, _ commands.ReconcileOnramp, out commands.Reconciled, _ error) {
	for _, f := range out.Failed {
		log.Warn().Err(f.Err).Str("receipt_id", f.ReceiptID).Msg("reconcile: verification failed")
	}
}
