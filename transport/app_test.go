package transport_test

import (
	"context"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/cmd/payledger/app"
	"github.com/payledger/payledger/cmd/payledger/app/web"
	"github.com/payledger/payledger/transport"
)

// init hands the internal tests the service's one construction (export_test.go).
func init() {
	transport.BuildService = func(ctx context.Context, cfg app.Config, http transport.Config, limiter transport.Limiter, chainID int64, log zerolog.Logger) (*app.Service, transport.Deps, error) {
		svc, err := web.Build(ctx, web.Config{App: cfg, HTTP: http, Limiter: limiter, LoginChainID: chainID, Log: log})
		if err != nil {
			var none transport.Deps // web.Build fills the dependencies; a failed build has none
			return nil, none, err
		}
		return svc.Service, svc.HTTP, nil
	}
}
