package transport

import (
	"context"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/cmd/payledger/app"
)

// BuildService builds the service as `payledger serve` does (cmd/payledger/app/web.Build) and
// returns it with the HTTP dependencies it filled. It is set by app_test.go, an external test
// file: web imports transport, so this package's own test files cannot import it, but an
// external test package can, and hands it over here before any test runs. One construction,
// no second copy (docs/decisions.md, issue 35).
var BuildService func(ctx context.Context, cfg app.Config, http Config, limiter Limiter, loginChainID int64, log zerolog.Logger) (*app.Service, Deps, error)
