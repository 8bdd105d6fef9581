package tracing

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/labstack/echo/v4"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// TestACallerCannotUnsampleItsRequests: a request whose traceparent says "not sampled" (flags 00)
// is traced all the same, in the caller's trace. The provider serve builds obeyed the flag, so
// any client could keep its requests (an attack included) out of the traces.
func TestACallerCannotUnsampleItsRequests(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := newProvider(exp, "payledger")
	defer func() { _ = tp.Shutdown(context.Background()) }()
	e := echo.New()
	e.Use(Middleware(tp))
	e.GET("/api/receipts/:id", func(c echo.Context) error { return c.NoContent(http.StatusOK) })
	for _, flags := range []string{"00", "01"} {
		req := httptest.NewRequest(http.MethodGet, "/api/receipts/rcpt_1", nil)
		req.Header.Set("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-"+flags)
		e.ServeHTTP(httptest.NewRecorder(), req)
	}
	if err := tp.ForceFlush(context.Background()); err != nil {
		t.Fatal(err)
	}
	spans := exp.GetSpans()
	if len(spans) != 2 {
		t.Fatalf("%d spans exported for two requests (one marked not sampled by its caller)", len(spans))
	}
	for _, s := range spans {
		if s.SpanContext.TraceID().String() != "4bf92f3577b34da6a3ce929d0e0e4736" || !s.SpanContext.IsSampled() {
			t.Fatalf("span %q trace %v sampled %v: the caller's trace, recorded", s.Name, s.SpanContext.TraceID(), s.SpanContext.IsSampled())
		}
	}
}
