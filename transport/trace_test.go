package transport

import (
	"net/http"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/payledger/payledger/cmd/payledger/app"
)

// TestTraceOfAnOrder: with a tracer provider (the SDK's, recording in memory), a request's trace
// holds the request's span (continuing the caller's traceparent), the command's, the append's
// (naming the receipt) and the read-your-writes wait's; the webhook delivery that follows the
// payment is a span whose traceparent the receiver gets.
func TestTraceOfAnOrder(t *testing.T) {
	t.Parallel()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	e := newAppEnv(t, func(c *app.Config) { c.Tracer = tp }, nil, nil)
	m := e.merchant(true)
	r := newReceiver(t)
	callerTrace := "4bf92f3577b34da6a3ce929d0e0e4736"
	res := e.dev(m, http.MethodPost, "/api/receipts", `{"lineItems":[{"label":"Order","priceUsd":42}],"totalUsd":42,"webhook_url":"`+r.srv.URL+`/hook"}`,
		"traceparent", "00-"+callerTrace+"-00f067aa0ba902b7-01")
	if res.Code != http.StatusCreated {
		t.Fatalf("receipt: %d %s", res.Code, res.Body)
	}
	id := decode(t, res)["receipt"].(map[string]any)["receiptId"].(string)

	byName := map[string]sdktrace.ReadOnlySpan{}
	for _, s := range rec.Ended() {
		if s.SpanContext().TraceID().String() == callerTrace {
			byName[s.Name()] = s
		}
	}
	server, command, appended, wait := byName["POST /api/receipts"], byName["command CreateReceipt"], byName["eventstore.append"], byName["projector.wait"]
	if server == nil || command == nil || appended == nil || wait == nil {
		t.Fatalf("the request's trace holds %v", keys(byName))
	}
	if command.Parent().SpanID() != server.SpanContext().SpanID() || wait.Parent().SpanID() != server.SpanContext().SpanID() {
		t.Fatal("the command and the wait are not children of the request")
	}
	if appended.Parent().SpanID() != command.SpanContext().SpanID() || attr(appended, "payledger.receipt_id") != id {
		t.Fatalf("append: parent %v, receipt %q", appended.Parent().SpanID(), attr(appended, "payledger.receipt_id"))
	}

	e.pay(id, "evt_trace")
	waitUntil(t, "delivery", 10*time.Second, func() bool { return r.count() == 1 })
	var delivery sdktrace.ReadOnlySpan
	waitUntil(t, "the delivery's span", 5*time.Second, func() bool {
		for _, s := range rec.Ended() {
			if s.Name() == "webhook.deliver" {
				delivery = s
			}
		}
		return delivery != nil
	})
	sc := delivery.SpanContext()
	if got, want := r.all()[0].header.Get("traceparent"), "00-"+sc.TraceID().String()+"-"+sc.SpanID().String()+"-01"; got != want {
		t.Fatalf("receiver's traceparent %q, want the delivery span's %q", got, want)
	}
	if attr(delivery, "payledger.receipt_id") != id {
		t.Fatalf("delivery attributes %v", delivery.Attributes())
	}
}

// Without a tracer provider the receiver gets no traceparent.
func TestNoTraceWithoutProvider(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(true)
	r := newReceiver(t)
	id := e.hookedReceipt(m, r.srv.URL+"/hook")
	e.pay(id, "evt_plain")
	waitUntil(t, "delivery", 10*time.Second, func() bool { return r.count() == 1 })
	if h := r.all()[0].header.Get("traceparent"); h != "" {
		t.Fatalf("traceparent %q without tracing", h)
	}
}

func keys(m map[string]sdktrace.ReadOnlySpan) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func attr(s sdktrace.ReadOnlySpan, key string) string {
	for _, a := range s.Attributes() {
		if string(a.Key) == key {
			return a.Value.Emit()
		}
	}
	return ""
}
