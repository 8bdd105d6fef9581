package transport

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/payledger/payledger/cmd/payledger/app"
)

// TestARequestsTraceAndLogsNameEachOther: the request's server span carries its correlation id
// (X-Correlation-Id, what the spec has merchants quote to support) and its log lines carry the
// trace's id. Neither did (stop 67): an operator given a correlation id found the request's log
// lines but not its trace, and from a trace could not reach the log lines of the same request.
func TestARequestsTraceAndLogsNameEachOther(t *testing.T) {
	t.Parallel()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	e := newAppEnv(t, func(c *app.Config) { c.Tracer = tp }, nil, nil)
	m := e.merchant(true)
	const correlation, callerTrace = "support-ticket-4711", "4bf92f3577b34da6a3ce929d0e0e4736"
	res := e.dev(m, http.MethodPost, "/api/receipts", `{"lineItems":[{"label":"Order","priceUsd":42}],"totalUsd":42}`,
		"X-Correlation-Id", correlation, "traceparent", "00-"+callerTrace+"-00f067aa0ba902b7-01")
	if res.Code != http.StatusCreated || res.Header().Get("X-Correlation-Id") != correlation {
		t.Fatalf("receipt: %d %s (correlation %q)", res.Code, res.Body, res.Header().Get("X-Correlation-Id"))
	}
	var server sdktrace.ReadOnlySpan
	for _, s := range rec.Ended() {
		if s.Name() == "POST /api/receipts" && s.SpanContext().TraceID().String() == callerTrace {
			server = s
		}
	}
	if server == nil {
		t.Fatal("no server span for the request")
	}
	if got := attr(server, "payledger.correlation_id"); got != correlation {
		t.Fatalf("the request's span carries correlation id %q, want %q", got, correlation)
	}
	lines := 0
	for _, line := range strings.Split(strings.TrimSpace(e.logs.String()), "\n") {
		var l map[string]any
		if json.Unmarshal([]byte(line), &l) != nil || l["correlation_id"] != correlation {
			continue
		}
		lines++
		if l["trace_id"] != callerTrace {
			t.Errorf("a log line of the request has trace_id %v, want %s: %s", l["trace_id"], callerTrace, line)
		}
	}
	if lines == 0 {
		t.Fatalf("no log line of the request; logs:\n%s", e.logs)
	}
}
