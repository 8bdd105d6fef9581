package app

import (
	"context"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/projections"
	"github.com/payledger/payledger/transport/tracing"
)

// The tracing decorators (Deps.Tracer): a span for each use case and for each append, children
// of the request's span (transport/tracing.Middleware) or of a background process's. As the
// logging decorator, they keep the use cases' files free of the concern.

// tracedCommand is the tracing decorator of a use case.
type tracedCommand[C, R any] struct {
	next   commands.Handler[C, R]
	tracer trace.Tracer
	name   string
}

// Handle runs the use case in its span; a refusal or failure marks the span as an error.
func (h tracedCommand[C, R]) Handle(ctx context.Context, cmd C) (R, error) {
	ctx, span := h.tracer.Start(ctx, "command "+h.name, trace.WithAttributes(tracing.Command.String(h.name)))
	defer span.End()
	out, err := h.next.Handle(ctx, cmd)
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, "refused or failed")
	}
	return out, err
}

func traceCommand[C, R any](h commands.Handler[C, R], tracer trace.Tracer, name string) commands.Handler[C, R] {
	if h == nil {
		return nil
	}
	return tracedCommand[C, R]{next: h, tracer: tracer, name: name}
}

// traceCommands wraps every use case in its span.
func traceCommands(h commands.Handlers, tracer trace.Tracer) commands.Handlers {
	h.CreateOrder = traceCommand(h.CreateOrder, tracer, "CreateOrder")
	h.CreateReceipt = traceCommand(h.CreateReceipt, tracer, "CreateReceipt")
	h.StartOnramp = traceCommand(h.StartOnramp, tracer, "StartOnramp")
	h.SubmitWalletPayment = traceCommand(h.SubmitWalletPayment, tracer, "SubmitWalletPayment")
	h.RecordTelemetry = traceCommand(h.RecordTelemetry, tracer, "RecordTelemetry")
	h.ApplyProcessorEvent = traceCommand(h.ApplyProcessorEvent, tracer, "ApplyProcessorEvent")
	h.ReconcileOnramp = traceCommand(h.ReconcileOnramp, tracer, "ReconcileOnramp")
	h.Refund = traceCommand(h.Refund, tracer, "Refund")
	h.DisplayTerminal = traceCommand(h.DisplayTerminal, tracer, "DisplayTerminal")
	h.CompleteTerminal = traceCommand(h.CompleteTerminal, tracer, "CompleteTerminal")
	h.QuoteToken = traceCommand(h.QuoteToken, tracer, "QuoteToken")
	h.ConfigureSplit = traceCommand(h.ConfigureSplit, tracer, "ConfigureSplit")
	h.CreateSubscription = traceCommand(h.CreateSubscription, tracer, "CreateSubscription")
	h.CancelSubscription = traceCommand(h.CancelSubscription, tracer, "CancelSubscription")
	return h
}

// tracedAppends is the write store with a span for each append. It embeds the store it wraps,
// so the optional interfaces the pipeline looks for (commands.GenerationAppender,
// eventstore.CompanionAppender, the stream readers) stay what they were.
type tracedAppends struct {
	*projections.ReceiptsAtAppend
	tracer trace.Tracer
}

// start opens an append's span; a receipt's stream names the receipt, the attribute an order's
// trace is found by (docs/runbook.md).
func (s tracedAppends) start(ctx context.Context, stream string, n int) (context.Context, trace.Span) {
	attrs := []attribute.KeyValue{attribute.String("payledger.stream", stream), attribute.Int("payledger.events", n)}
	if id, ok := strings.CutPrefix(stream, receipt.StreamPrefix); ok {
		attrs = append(attrs, tracing.ReceiptID.String(id))
	}
	return s.tracer.Start(ctx, "eventstore.append", trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
}

func end(span trace.Span, res eventstore.AppendResult, err error) {
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, "append failed")
	} else {
		span.SetAttributes(attribute.Int64("payledger.version", int64(res.Version)))
	}
	span.End()
}

// Append implements eventstore.Store.
func (s tracedAppends) Append(ctx context.Context, stream string, expected eventstore.ExpectedVersion, events ...eventstore.EventData) (eventstore.AppendResult, error) {
	ctx, span := s.start(ctx, stream, len(events))
	res, err := s.ReceiptsAtAppend.Append(ctx, stream, expected, events...)
	end(span, res, err)
	return res, err
}

// AppendWith implements eventstore.CompanionAppender.
func (s tracedAppends) AppendWith(ctx context.Context, stream string, expected eventstore.ExpectedVersion,
	companions []eventstore.Companion, events ...eventstore.EventData) (eventstore.AppendResult, error) {
	ctx, span := s.start(ctx, stream, len(events))
	res, err := s.ReceiptsAtAppend.AppendWith(ctx, stream, expected, companions, events...)
	end(span, res, err)
	return res, err
}

// AppendGeneration implements commands.GenerationAppender.
func (s tracedAppends) AppendGeneration(ctx context.Context, stream string, expected eventstore.ExpectedVersion, g receipt.Generated,
	companions []eventstore.Companion, ev eventstore.EventData) (eventstore.AppendResult, error) {
	ctx, span := s.start(ctx, stream, 1)
	span.SetAttributes(tracing.Merchant.String(g.Merchant))
	res, err := s.ReceiptsAtAppend.AppendGeneration(ctx, stream, expected, g, companions, ev)
	end(span, res, err)
	return res, err
}

var (
	_ commands.GenerationAppender  = tracedAppends{}
	_ eventstore.CompanionAppender = tracedAppends{}
	_ eventstore.Store             = tracedAppends{}
)
