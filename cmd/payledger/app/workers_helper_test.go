package app_test

import (
	"context"
	"sync"
	"testing"

	"github.com/payledger/payledger/cmd/payledger/app"
)

// runWorkers runs every background worker of svc, as serve starts them, until the test ends.
func runWorkers(t *testing.T, svc *app.Service) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for _, w := range svc.Workers() {
		wg.Go(func() { _ = w.Run(ctx) })
	}
	t.Cleanup(func() { cancel(); wg.Wait() })
}
