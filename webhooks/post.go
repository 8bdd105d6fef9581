package webhooks

// The wire: what every delivery (receipt webhooks, endpoint messages, subscription webhooks) goes
// through after it is signed: the URL check, the POST through the dispatcher's client, and the
// delivery's span.

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// post sends body to url with the headers set puts on it, through the dispatcher's client (its
// timeout and address checks), and reads a bounded part of the answer so the connection is
// reused. The status is nil when no answer came; an answer outside 2xx is an error.
// With a Tracer, the delivery is a span (attrs name what it carries) whose traceparent goes with it.
func (d *Dispatcher) post(ctx context.Context, url string, body []byte, attrs []attribute.KeyValue, set func(http.Header)) (code *int, err error) {
	if d.Tracer != nil {
		var span trace.Span
		ctx, span = d.Tracer.Tracer(tracerScope).Start(ctx, "webhook.deliver", trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
		defer func() { endDelivery(span, code, err) }()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	set(req.Header)
	if d.Tracer != nil {
		propagation.TraceContext{}.Inject(ctx, propagation.HeaderCarrier(req.Header))
	}
	resp, err := d.client.Do(req)
	if err != nil {
		return nil, err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	status := resp.StatusCode
	if status/100 != 2 {
		return &status, fmt.Errorf("%w: %d", errReceiverStatus, status)
	}
	return &status, nil
}

// Delivery spans: the scope and attributes (transport/tracing's, not imported: webhooks does not
// depend on transport).
const tracerScope = "github.com/payledger/payledger"

var (
	receiptAttr = attribute.Key("payledger.receipt_id")
	eventAttr   = attribute.Key("payledger.event_type")
)

// endDelivery records a delivery's outcome on its span: the receiver's status, or the error
// category merchants see (never the resolver's or an internal address).
func endDelivery(span trace.Span, code *int, err error) {
	if code != nil {
		span.SetAttributes(attribute.Int("http.response.status_code", *code))
	}
	if err != nil {
		span.SetStatus(codes.Error, "delivery failed")
	}
	span.End()
}

// checkURL refuses what is not http(s) and, in production, what is not https or what
// PrivateHost names (the order-time check's classification; the dialer checks what a name
// resolves to).
func (d *Dispatcher) checkURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return fmt.Errorf("%w: not http(s)", errInvalidURL)
	}
	if d.Production && u.Scheme != "https" {
		return fmt.Errorf("%w: https is required in production", errInvalidURL)
	}
	if d.Production && PrivateHost(raw) {
		return errBlockedAddress
	}
	return nil
}
