package postgres_test

import (
	"context"
	"testing"

	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/conformance"
	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/migrations/pgtest"
)

func TestConformance(t *testing.T) {
	conformance.Run(t, conformance.Harness{
		New: func(t *testing.T) eventstore.Store { return postgres.New(pgtest.Pool(t)) },
		NewPausing: func(t *testing.T, pause func(context.Context)) eventstore.Store {
			return postgres.New(pgtest.Pool(t), postgres.WithBeforeCommit(pause))
		},
	})
}
