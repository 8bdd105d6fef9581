package tracing

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"
	"github.com/rs/zerolog"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// Middleware starts a server span for each request, named by its route ("POST /api/orders",
// never the ids in the path), continuing the caller's trace when it sent a traceparent. The
// request's context carries the span, so the command, the append, the projector wait and any
// chain call it makes are its children.
func Middleware(tp trace.TracerProvider) echo.MiddlewareFunc {
	tracer := Tracer(tp)
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			req := c.Request()
			ctx := propagator.Extract(req.Context(), propagation.HeaderCarrier(req.Header))
			route := c.Path()
			if route == "" {
				route = "unmatched"
			}
			method := spanMethod(req.Method)
			ctx, span := tracer.Start(ctx, method+" "+route, trace.WithSpanKind(trace.SpanKindServer),
				trace.WithAttributes(attribute.String("http.request.method", method), attribute.String("http.route", route)))
			defer span.End()
			// The request's correlation id (set on the answer by transport's correlation middleware,
			// which runs first) on its span, and the trace's id on the request's log lines: a
			// support request quoting X-Correlation-Id finds its trace, and a trace its log lines.
			if id := c.Response().Header().Get(correlationHeader); id != "" {
				span.SetAttributes(CorrelationID.String(id))
			}
			log := zerolog.Ctx(ctx).With().Str("trace_id", span.SpanContext().TraceID().String()).Logger()
			ctx = log.WithContext(ctx)
			c.SetRequest(req.WithContext(ctx))
			err := next(c)
			status := c.Response().Status
			if he, ok := err.(*echo.HTTPError); ok && !c.Response().Committed {
				status = he.Code
			}
			span.SetAttributes(attribute.Int("http.response.status_code", status))
			if status >= 500 || (err != nil && status == 0) {
				span.SetStatus(codes.Error, http.StatusText(status))
			}
			return err
		}
	}
}

// correlationHeader is transport.CorrelationHeader (not imported: transport imports this package).
const correlationHeader = "X-Correlation-Id"

// spanMethod is how a server span names the request's method: one of HTTP's methods as it is,
// any other "_OTHER" (OpenTelemetry's HTTP conventions). The method is the client's text, up to
// the server's 1 MiB header limit: a span named by it (name and attribute) could be a megabyte,
// and a batch of such spans one the collector refuses whole, with the other requests' spans in it.
func spanMethod(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return m
	}
	return "_OTHER"
}

// Transport is an http.RoundTripper that gives each request a client span (named by name, and
// by what nameOf says of the request when it is set) and sends the span's traceparent with it.
// Base nil is http.DefaultTransport.
type Transport struct {
	Base   http.RoundTripper
	Tracer trace.Tracer
	Name   string
	NameOf func(*http.Request) string
	// Attributes adds the caller's attributes to the span (never a URL's path or query: a
	// receiver's URL may carry a secret).
	Attributes []attribute.KeyValue
	// ChildrenOnly: a call made outside any span (the chain follower's polling, every second)
	// gets none, so that the traces are the requests', not one per poll.
	ChildrenOnly bool
}

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	if t.ChildrenOnly && !trace.SpanContextFromContext(req.Context()).IsValid() {
		return base.RoundTrip(req)
	}
	name := t.Name
	if t.NameOf != nil {
		if n := t.NameOf(req); n != "" {
			name += " " + n
		}
	}
	attrs := append([]attribute.KeyValue{attribute.String("http.request.method", req.Method),
		attribute.String("server.address", req.URL.Hostname())}, t.Attributes...)
	ctx, span := t.Tracer.Start(req.Context(), name, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	defer span.End()
	req = req.Clone(ctx)
	propagator.Inject(ctx, propagation.HeaderCarrier(req.Header))
	resp, err := base.RoundTrip(req)
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, "no answer")
		return nil, err
	}
	span.SetAttributes(attribute.Int("http.response.status_code", resp.StatusCode))
	if resp.StatusCode >= 400 {
		span.SetStatus(codes.Error, http.StatusText(resp.StatusCode))
	}
	return resp, nil
}

// maxPeek bounds how much of a JSON-RPC request body JSONRPCMethod reads to name it.
const maxPeek = 64 << 10

// JSONRPCMethod names a JSON-RPC request by its method ("eth_getLogs"), or "batch(n)" for a
// batch, and leaves the body as it was; "" when it cannot tell.
func JSONRPCMethod(req *http.Request) string {
	if req.GetBody == nil {
		return ""
	}
	body, err := req.GetBody()
	if err != nil {
		return ""
	}
	defer body.Close()
	raw, err := io.ReadAll(io.LimitReader(body, maxPeek))
	if err != nil {
		return ""
	}
	raw = bytes.TrimSpace(raw)
	var one struct {
		Method string `json:"method"`
	}
	if len(raw) > 0 && raw[0] == '[' {
		var many []json.RawMessage
		if json.Unmarshal(raw, &many) != nil {
			return "batch"
		}
		return "batch(" + strconv.Itoa(len(many)) + ")"
	}
	if json.Unmarshal(raw, &one) != nil {
		return ""
	}
	return one.Method
}
