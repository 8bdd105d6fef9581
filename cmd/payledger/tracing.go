package main

import (
	"context"
	"net/http"
	"time"

	"github.com/ethereum/go-ethereum/rpc"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/transport/tracing"
)

// startTracing builds the tracer provider OTEL_EXPORTER_OTLP_ENDPOINT asks for and keeps it in
// cfg, whence serve hands it to the application, the HTTP layer, the webhook dispatcher and the
// chain client. The returned stop flushes the spans not yet exported (at most 5 s).
func startTracing(ctx context.Context, cfg *config, log zerolog.Logger) (stop func(), err error) {
	if cfg.Tracing.Endpoint == "" {
		return func() {}, nil
	}
	// Spans are exported with the secrets the logs hide hidden too: an error recorded on a
	// command's span quotes the URL its call failed on (ETH_RPC_URL's or PROCESSOR_API_URL's key).
	secrets := &secretsOut{}
	secrets.set(*cfg)
	cfg.Tracing.Redact = secrets.redact
	p, err := tracing.New(ctx, cfg.Tracing)
	if err != nil {
		return nil, err
	}
	cfg.tracer = p.TracerProvider
	log.Info().Str("endpoint", cfg.Tracing.Endpoint).Str("service", cfg.Tracing.ServiceName).Msg("tracing: spans exported over OTLP/HTTP")
	return func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := p.Shutdown(sctx); err != nil {
			log.Warn().Err(err).Msg("tracing: spans not flushed at stop")
		}
	}, nil
}

// chainRPCOptions are the chain client's dial options: with tracing, an HTTP client whose calls
// made within a span (a request's, a delivery's) are spans named by their JSON-RPC method
// ("chain.rpc eth_getTransactionReceipt") and carry a traceparent; the background polling of
// the chain makes none (it would be a trace a second).
func chainRPCOptions(cfg config) []rpc.ClientOption {
	if cfg.tracer == nil {
		return nil
	}
	client := &http.Client{Transport: &tracing.Transport{Tracer: tracing.Tracer(cfg.tracer), Name: "chain.rpc", NameOf: tracing.JSONRPCMethod, ChildrenOnly: true}}
	return []rpc.ClientOption{rpc.WithHTTPClient(client)}
}
