package main

import (
	"context"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/transport/tracing"
)

// TestChainCallsTraced: with tracing, the chain client serve dials makes each JSON-RPC call a
// span named by its method, a child of the caller's (a request's) span; without, no option.
func TestChainCallsTraced(t *testing.T) {
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
