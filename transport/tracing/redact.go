package tracing

import (
	"context"
	"slices"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// redactingExporter hands its exporter every span with the texts redact changes replaced (Config.
// Redact): the span's name, its status, its attributes and those of its events and links. An
// error recorded on a span (RecordError: the event's exception.message) quotes what the failing
// call was given, and net/http's errors repeat the whole URL, so a command that failed on the
// onramp processor or the node put PROCESSOR_API_URL's or ETH_RPC_URL's key into every trace
// exported, which the logs' redactor never sees.
type redactingExporter struct {
	next   sdktrace.SpanExporter
	redact func(string) string
}

// ExportSpans implements sdktrace.SpanExporter.
func (e redactingExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	out := make([]sdktrace.ReadOnlySpan, len(spans))
	for i, s := range spans {
		out[i] = e.span(s)
	}
	return e.next.ExportSpans(ctx, out)
}

// Shutdown implements sdktrace.SpanExporter.
func (e redactingExporter) Shutdown(ctx context.Context) error { return e.next.Shutdown(ctx) }

// span is s with its texts redacted; s itself when nothing in it changes (nearly every span).
func (e redactingExporter) span(s sdktrace.ReadOnlySpan) sdktrace.ReadOnlySpan {
	stub := tracetest.SpanStubFromReadOnlySpan(s)
	changed := false
	text := func(v string) string {
		r := e.redact(v)
		changed = changed || r != v
		return r
	}
	attrs := func(kvs []attribute.KeyValue) []attribute.KeyValue {
		var out []attribute.KeyValue
		for i, kv := range kvs {
			v, ok := redactValue(kv.Value, text)
			if !ok {
				continue
			}
			if out == nil {
				out = append(make([]attribute.KeyValue, 0, len(kvs)), kvs...)
			}
			out[i] = attribute.KeyValue{Key: kv.Key, Value: v}
		}
		if out == nil {
			return kvs
		}
		return out
	}
	// The exporter's span may share its slices with other processors': changed on copies.
	stub.Events, stub.Links = slices.Clone(stub.Events), slices.Clone(stub.Links)
	stub.Name = text(stub.Name)
	stub.Status.Description = text(stub.Status.Description)
	stub.Attributes = attrs(stub.Attributes)
	for i := range stub.Events {
		stub.Events[i].Name = text(stub.Events[i].Name)
		stub.Events[i].Attributes = attrs(stub.Events[i].Attributes)
	}
	for i := range stub.Links {
		stub.Links[i].Attributes = attrs(stub.Links[i].Attributes)
	}
	if !changed {
		return s
	}
	return stub.Snapshot()
}

// redactValue is v with text applied to its strings, and whether that changed it.
func redactValue(v attribute.Value, text func(string) string) (attribute.Value, bool) {
	switch v.Type() {
	case attribute.STRING:
		if r := text(v.AsString()); r != v.AsString() {
			return attribute.StringValue(r), true
		}
	case attribute.STRINGSLICE:
		in := v.AsStringSlice()
		out, changed := make([]string, len(in)), false
		for i, s := range in {
			out[i] = text(s)
			changed = changed || out[i] != s
		}
		if changed {
			return attribute.StringSliceValue(out), true
		}
	}
	return v, false
}
