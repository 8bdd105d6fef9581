package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/transport/tracing"
)

// TestChainCallsTraced: with tracing, the chain client serve dials makes each JSON-RPC call a
// span named by its method, a child of the caller's (a request's) span; without, no option.
func TestChainCallsTraced(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dev, err := chain.StartDevChain(ctx, chain.DevChainOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	if opts := chainRPCOptions(config{}); opts != nil {
		t.Fatalf("options without tracing: %v", opts)
	}
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	cfg := config{tracer: tp}
	reqCtx, request := tracing.Tracer(tp).Start(ctx, "POST /api/portal/:id/payment")
	rpc, err := chain.Dial(reqCtx, dev.URL, dev.ChainID, chainRPCOptions(cfg)...)
	if err != nil {
		t.Fatal(err)
	}
	defer rpc.Close()
	if _, err := rpc.BlockNumber(reqCtx); err != nil {
		t.Fatal(err)
	}
	request.End()
	var got []string
	for _, s := range rec.Ended() {
		if s.Parent().SpanID() == request.SpanContext().SpanID() {
			got = append(got, s.Name())
		}
	}
	if len(got) != 2 || got[0] != "chain.rpc eth_chainId" || got[1] != "chain.rpc eth_blockNumber" {
		t.Fatalf("the request's chain spans: %v", got)
	}
}

// TestServeExportsTraces: serve with OTEL_EXPORTER_OTLP_ENDPOINT sends its requests' spans to
// <endpoint>/v1/traces over OTLP/HTTP (flushed at the latest when it stops); without it, nothing.
func TestServeExportsTraces(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var got []string
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, r.URL.Path+" "+string(body))
		mu.Unlock()
	}))
	defer collector.Close()
	for _, endpoint := range []string{collector.URL, ""} {
		vars := map[string]string{"DEVCHAIN": "off", "OTEL_EXPORTER_OTLP_ENDPOINT": endpoint, "OTEL_SERVICE_NAME": "payledger-test"}
		base, _, stop := startServeStoppable(t, vars)
		resp, err := http.Get(base + "/api/status/ping")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		stop() // flushes the batch
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) == 0 {
		t.Fatal("the collector received nothing")
	}
	all := strings.Join(got, "\n")
	if !strings.HasPrefix(got[0], "/v1/traces ") || !strings.Contains(all, "GET /api/status/ping") || !strings.Contains(all, "payledger-test") {
		t.Fatalf("exported: %q", all)
	}
	if n := strings.Count(all, "GET /api/status/ping"); n != 1 {
		t.Fatalf("the request's span exported %d times: the run without an endpoint exported too", n)
	}
}
