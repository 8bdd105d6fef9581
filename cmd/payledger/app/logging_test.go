package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/commands"
)

// The decorator logs, with the context's logger, what an outcome tells an operator, and nothing
// for an outcome that says nothing more than the answer.
func TestLoggingDecoratorNotesOutcomes(t *testing.T) {
	var logs bytes.Buffer
	ctx := zerolog.New(&logs).With().Str("correlation_id", "c-1").Logger().WithContext(context.Background())
	down := errors.New("processor down")
	reconcile := logOutcomes(commands.HandlerFunc[commands.ReconcileOnramp, commands.Reconciled](
		func(context.Context, commands.ReconcileOnramp) (commands.Reconciled, error) {
			return commands.Reconciled{Checked: 2, Failed: []commands.FailedVerification{{ReceiptID: "r1", Err: down}}}, nil
		}), noteReconcile)
	event := func(stored bool, unhandled string) commands.Handler[commands.ApplyProcessorEvent, commands.ProcessorEventApplied] {
		return logOutcomes(commands.HandlerFunc[commands.ApplyProcessorEvent, commands.ProcessorEventApplied](
			func(context.Context, commands.ApplyProcessorEvent) (commands.ProcessorEventApplied, error) {
				return commands.ProcessorEventApplied{Stored: stored, Unhandled: unhandled}, nil
			}), noteProcessorEvent)
	}
	onramp := logOutcomes(commands.HandlerFunc[commands.StartOnramp, commands.OnrampStarted](
		func(context.Context, commands.StartOnramp) (commands.OnrampStarted, error) {
			return commands.OnrampStarted{}, fmt.Errorf("%w: %w", commands.ErrProcessorUnavailable, down)
		}), noteStartOnramp)
	telemetry := logOutcomes(commands.HandlerFunc[commands.RecordTelemetry, commands.TelemetryRecorded](
		func(context.Context, commands.RecordTelemetry) (commands.TelemetryRecorded, error) {
			return commands.TelemetryRecorded{Unverified: down}, nil
		}), noteTelemetry)

	if out, err := reconcile.Handle(ctx, commands.ReconcileOnramp{}); err != nil || out.Checked != 2 {
		t.Fatalf("the decorator changed the outcome: %+v %v", out, err)
	}
	_, _ = event(false, "").Handle(ctx, commands.ApplyProcessorEvent{EventID: "evt_quiet"})
	if logs.Len() != len(`{"level":"warn","correlation_id":"c-1","error":"processor down","receipt_id":"r1","message":"reconcile: verification failed"}`)+1 {
		t.Fatalf("logs after a failed verification and an applied event: %s", logs.String())
	}
	_, _ = event(true, "").Handle(ctx, commands.ApplyProcessorEvent{EventID: "evt_1", ReceiptID: "r2"})
	// A dispute of a known receipt is kept too, and is not "for an unknown receipt" (stop 68).
	_, _ = event(true, "disputed").Handle(ctx, commands.ApplyProcessorEvent{EventID: "evt_2", ReceiptID: "r4"})
	if _, err := onramp.Handle(ctx, commands.StartOnramp{}); !errors.Is(err, commands.ErrProcessorUnavailable) {
		t.Fatalf("the decorator changed the error: %v", err)
	}
	_, _ = telemetry.Handle(ctx, commands.RecordTelemetry{ReceiptID: "r3"})
	for _, want := range []string{
		`"receipt_id":"r1","message":"reconcile: verification failed"`,
		`"processor_event":"evt_1","receipt_id":"r2","message":"processor event for an unknown receipt stored"`,
		`{"level":"error","correlation_id":"c-1","error":"processor_unavailable: The onramp processor did not start a session; try again: processor down","message":"onramp session"}`,
		`"error":"processor down","receipt_id":"r3","message":"verification after checkout_success"`,
		`"processor_event":"evt_2","receipt_id":"r4","processor_status":"disputed","message":"processor event of a status this version does not act on stored"`,
	} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("no %s in\n%s", want, logs.String())
		}
	}
	if n := strings.Count(logs.String(), "\n"); n != 5 {
		t.Errorf("%d lines, want 5:\n%s", n, logs.String())
	}
}
