// Package tracing holds payledger's OpenTelemetry traces: the provider that
// OTEL_EXPORTER_OTLP_ENDPOINT asks for, the HTTP server middleware that starts a request's trace,
// and the client transport that gives each outgoing call (webhook deliveries, chain JSON-RPC) a
// span and the receiver a traceparent header.
//
// Nothing here is global: the provider is built once by serve and passed to whatever starts
// spans; the W3C trace-context propagator is a value, not otel's global one. Without an endpoint
// the provider is a no-op one, and nothing is recorded or exported.
package tracing

import (
	"context"
	"fmt"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// Scope is the instrumentation scope of every payledger span.
const Scope = "github.com/payledger/payledger"

// Attribute keys payledger sets on its spans; ReceiptID is the one to search an order's trace by.
const (
	ReceiptID = attribute.Key("payledger.receipt_id")
	Merchant  = attribute.Key("payledger.merchant")
	Command   = attribute.Key("payledger.command")
	// CorrelationID is the request's X-Correlation-Id, on its server span.
	CorrelationID = attribute.Key("payledger.correlation_id")
)

// propagator carries the trace context in traceparent/tracestate headers (W3C).
var propagator = propagation.TraceContext{}

// Provider is the tracer provider serve runs with, and its shutdown (flushes the spans not yet
// exported; a no-op without an exporter).
type Provider struct {
	trace.TracerProvider
	Shutdown func(context.Context) error
}

// Config is what the provider is built from: OTEL_EXPORTER_OTLP_ENDPOINT (the collector's base
// URL; OTLP over HTTP, traces at /v1/traces) and OTEL_SERVICE_NAME (default payledger). The
// exporter reads the other OTEL_EXPORTER_OTLP_* variables (headers, timeout) itself.
type Config struct {
	Endpoint    string
	ServiceName string
	// Redact, when set, is applied to every text a span carries before it is exported (serve
	// replaces its configured secrets, as in its logs): errors recorded on spans quote URLs.
	Redact func(string) string
}

// New returns the provider cfg asks for: with no endpoint a no-op provider, else spans batched
// to the OTLP/HTTP exporter.
func New(ctx context.Context, cfg Config) (Provider, error) {
	if cfg.Endpoint == "" {
		return Provider{TracerProvider: noop.NewTracerProvider(), Shutdown: func(context.Context) error { return nil }}, nil
	}
	exp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(strings.TrimRight(cfg.Endpoint, "/")+"/v1/traces"))
	if err != nil {
		return Provider{}, fmt.Errorf("tracing: OTLP exporter for %s: %w", cfg.Endpoint, err)
	}
	name := cfg.ServiceName
	if name == "" {
		name = "payledger"
	}
	var out sdktrace.SpanExporter = exp
	if cfg.Redact != nil {
		out = redactingExporter{next: exp, redact: cfg.Redact}
	}
	tp := newProvider(out, name)
	return Provider{TracerProvider: tp, Shutdown: tp.Shutdown}, nil
}

// newProvider batches every span to exp. The sampler records every request, whatever the
// caller's traceparent says: the default one (parent-based) drops a request whose caller marked
// its trace not sampled (flags 00), so any client on the internet could keep its requests out of
// the traces an operator investigates it with. A caller's trace id is still continued (DESIGN
// tracing decision); only its sampling decision is not obeyed.
func newProvider(exp sdktrace.SpanExporter, name string) *sdktrace.TracerProvider {
	sampler := sdktrace.ParentBased(sdktrace.AlwaysSample(), sdktrace.WithRemoteParentNotSampled(sdktrace.AlwaysSample()))
	return sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithSampler(sampler),
		sdktrace.WithResource(resource.NewSchemaless(attribute.String("service.name", name))))
}

// Tracer is payledger's tracer of tp; a nil tp gives a no-op tracer, so that code built without
// a provider (tests, tools) needs no check.
func Tracer(tp trace.TracerProvider) trace.Tracer {
	if tp == nil {
		tp = noop.NewTracerProvider()
	}
	return tp.Tracer(Scope)
}
