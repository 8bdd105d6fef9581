package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/rs/zerolog"
	"go.opentelemetry.io/otel/codes"

	"github.com/payledger/payledger/transport/tracing"
)

// TestSpansNeverShowTheNodeProvidersKey: an error recorded on a span (a command's, through
// RecordError) quotes the URL its call failed on, as net/http's errors do, so the node provider's
// key in ETH_RPC_URL's path and a key in PROCESSOR_API_URL's query went to the trace collector in
// every span of a failed call (stop 67: the logs hid them, the traces did not). The exported spans
// now carry "[redacted]" in their place, as the logs do.
func TestSpansNeverShowTheNodeProvidersKey(t *testing.T) {
	t.Parallel()
	const key = "9f8e7d6c5b4a39281706f5e4d3c2b1a0"
	var mu sync.Mutex
	var exported strings.Builder
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		exported.Write(body)
		mu.Unlock()
	}))
	defer collector.Close()
	node := fmt.Sprintf("127.0.0.1:%d", freePort(t)) // nothing listens there
	cfg, _, err := loadConfig(env(map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": collector.URL,
		"ETH_RPC_URL": "http://" + node + "/v2/" + key, "PROCESSOR_API_URL": "http://" + node + "/v1?api_key=proc-" + key}), strings.NewReader(strings.Repeat("k", 1024)))
	if err != nil {
		t.Fatal(err)
	}
	stop, err := startTracing(context.Background(), &cfg, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	ctx, span := tracing.Tracer(cfg.tracer).Start(context.Background(), "command StartOnramp")
	for _, u := range []string{cfg.EthRPCURL, cfg.ProcessorAPIURL + "&x=1"} {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, u, nil)
		_, callErr := http.DefaultClient.Do(req) // a real net/http error: Post "<the URL>": dial tcp ...
		if callErr == nil || !strings.Contains(callErr.Error(), key) {
			t.Fatalf("the call's error does not quote its URL: %v", callErr)
		}
		span.RecordError(fmt.Errorf("processor unavailable: %w", callErr))
		span.SetStatus(codes.Error, callErr.Error())
	}
	span.End()
	stop() // flushes the batch
	mu.Lock()
	defer mu.Unlock()
	got := exported.String()
	if !strings.Contains(got, "command StartOnramp") || !strings.Contains(got, node+"[redacted]") {
		t.Fatalf("the span and its redacted errors were not exported: %q", got)
	}
	if strings.Contains(got, key) {
		t.Fatalf("a key went to the collector: %q", got)
	}
}
