package tracing

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/labstack/echo/v4"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

func recorder() (*tracetest.SpanRecorder, trace.TracerProvider) {
	rec := tracetest.NewSpanRecorder()
	return rec, sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
}

// Without OTEL_EXPORTER_OTLP_ENDPOINT nothing is recorded, so nothing can be exported.
func TestNewWithoutEndpointRecordsNothing(t *testing.T) {
	p, err := New(context.Background(), Config{})
	if err != nil {
		t.Fatal(err)
	}
	_, span := Tracer(p).Start(context.Background(), "x")
	if span.IsRecording() || span.SpanContext().IsValid() {
		t.Fatal("a span is recorded without an endpoint")
	}
	if _, span := Tracer(nil).Start(context.Background(), "x"); span.IsRecording() {
		t.Fatal("a nil provider records")
	}
}

// With an endpoint, spans go to <endpoint>/v1/traces over OTLP/HTTP (protobuf).
func TestNewExportsToTheEndpoint(t *testing.T) {
	var mu sync.Mutex
	var paths []string
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		paths = append(paths, r.Method+" "+r.URL.Path+" "+r.Header.Get("Content-Type"))
		mu.Unlock()
		if !strings.Contains(string(body), "POST /api/orders") {
			t.Errorf("exported body lacks the span's name: %q", body)
		}
		w.WriteHeader(http.StatusOK)
	}))
	defer collector.Close()
	p, err := New(context.Background(), Config{Endpoint: collector.URL + "/"})
	if err != nil {
		t.Fatal(err)
	}
	_, span := Tracer(p).Start(context.Background(), "POST /api/orders")
	span.End()
	if err := p.Shutdown(context.Background()); err != nil { // flushes the batch
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(paths) != 1 || paths[0] != "POST /v1/traces application/x-protobuf" {
		t.Fatalf("collector saw %v", paths)
	}
}

// The middleware names a request's span by its route, continues the caller's trace and puts the
// span in the request's context.
func TestMiddleware(t *testing.T) {
	rec, tp := recorder()
	e := echo.New()
	e.Use(Middleware(tp))
	var inside trace.SpanContext
	e.GET("/api/receipts/:id", func(c echo.Context) error {
		inside = trace.SpanContextFromContext(c.Request().Context())
		return c.String(http.StatusNotFound, "no")
	})
	req := httptest.NewRequest(http.MethodGet, "/api/receipts/rcpt_1", nil)
	req.Header.Set("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	e.ServeHTTP(httptest.NewRecorder(), req)
	spans := rec.Ended()
	if len(spans) != 1 {
		t.Fatalf("%d spans", len(spans))
	}
	s := spans[0]
	if s.Name() != "GET /api/receipts/:id" || s.SpanKind() != trace.SpanKindServer {
		t.Fatalf("span %q kind %v", s.Name(), s.SpanKind())
	}
	if s.SpanContext().TraceID().String() != "4bf92f3577b34da6a3ce929d0e0e4736" || s.Parent().SpanID().String() != "00f067aa0ba902b7" {
		t.Fatalf("the caller's trace is not continued: %v parent %v", s.SpanContext().TraceID(), s.Parent().SpanID())
	}
	if inside.SpanID() != s.SpanContext().SpanID() {
		t.Fatal("the handler's context does not carry the request's span")
	}
	if !hasInt(s, "http.response.status_code", 404) {
		t.Fatalf("attributes %v", s.Attributes())
	}
}

// The client transport gives a call its span, named by its JSON-RPC method, and sends its
// traceparent; the body reaches the server whole.
func TestTransport(t *testing.T) {
	rec, tp := recorder()
	var header, body string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		header, body = r.Header.Get("traceparent"), string(b)
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":"0x1"}`)
	}))
	defer srv.Close()
	client := &http.Client{Transport: &Transport{Tracer: Tracer(tp), Name: "chain.rpc", NameOf: JSONRPCMethod, ChildrenOnly: true}}
	// Outside any span (a poll of the chain follower): no span, no traceparent.
	req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(`{"method":"eth_blockNumber"}`))
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if len(rec.Ended()) != 0 || header != "" {
		t.Fatalf("a call outside any span made %d spans, traceparent %q", len(rec.Ended()), header)
	}
	ctx, parent := Tracer(tp).Start(context.Background(), "POST /api/portal/:id/payment")
	for _, call := range []string{`{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}`, `[{"method":"a"},{"method":"b"}]`} {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, strings.NewReader(call))
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if body != call {
			t.Fatalf("server got %q", body)
		}
	}
	parent.End()
	spans := rec.Ended()
	if len(spans) != 3 || spans[0].Name() != "chain.rpc eth_chainId" || spans[1].Name() != "chain.rpc batch(2)" {
		t.Fatalf("spans %v", names(spans))
	}
	want := "00-" + spans[1].SpanContext().TraceID().String() + "-" + spans[1].SpanContext().SpanID().String() + "-01"
	if header != want || spans[1].Parent().SpanID() != parent.SpanContext().SpanID() {
		t.Fatalf("traceparent %q, want %q (the call's span, child of the request's)", header, want)
	}
}

func names(spans []sdktrace.ReadOnlySpan) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.Name())
	}
	return out
}

func hasInt(s sdktrace.ReadOnlySpan, key string, v int64) bool {
	for _, a := range s.Attributes() {
		if string(a.Key) == key && a.Value.AsInt64() == v {
			return true
		}
	}
	return false
}
