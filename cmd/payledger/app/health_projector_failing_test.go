package app_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/payledger/payledger/internal/wait"
)

// TestHealthNamesAProjectorWhoseBatchFailsOnEveryRetry: a receipts row that should not exist
// (here inserted by hand) makes the receipts projector's batch fail on every retry, each second,
// for ever. The app's health said ok all along (only a Run that returns was seen); now the
// projection is stuck once it has failed for its bound (shortened here), named by Check (what
// /healthz answers) and logged once with the error (the runner's line per retry is an error for
// the first failure only), and it recovers when the row is removed and the batch commits.
func TestHealthNamesAProjectorWhoseBatchFailsOnEveryRetry(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc, pool, store, logs := stuckProjectorApp(t)
	if _, err := pool.Exec(ctx, `INSERT INTO receipts (receipt_id, merchant_wallet, status, currency, total_cents, created_at, updated_at,
		version, pos_commit, pos_prepare, state) VALUES ('stray', '0xother', 'paid', 'USD', 1, now(), now(), 9, 0, 0, '{"marker": true}')`); err != nil {
		t.Fatal(err)
	}
	appendGeneration(t, store, "stray")
	runWorkers(t, svc)

	wait.Until(t, "the receipts projection stuck on its failing batch", 60*time.Second, func() bool {
		return slices.Contains(svc.Health.Check(), "receipts projection")
	})
	stuckLines := func() int {
		n := 0
		for _, line := range strings.Split(logs.String(), "\n") {
			if strings.Contains(line, "background worker stuck") && strings.Contains(line, `"worker":"receipts projection"`) {
				n++
				if !strings.Contains(line, "duplicate key") || !strings.Contains(line, "failing_since") {
					t.Fatalf("the stuck line does not say why nor since when: %s", line)
				}
			}
		}
		return n
	}
	// Logged once as it becomes stuck, not at every retry: three more retries fail meanwhile.
	retries := strings.Count(logs.String(), "projection stopped; retrying")
	wait.Until(t, "three more failed retries", 30*time.Second, func() bool {
		svc.Health.Check()
		return strings.Count(logs.String(), "projection stopped; retrying") >= retries+3
	})
	if n := stuckLines(); n != 1 {
		t.Fatalf("%d stuck lines for the receipts projection, want 1:\n%s", n, logs.String())
	}
	// The runner's own line is an error for the run's first failure only, a warning after.
	errorLines := 0
	for _, line := range strings.Split(logs.String(), "\n") {
		if strings.Contains(line, `"level":"error"`) && strings.Contains(line, "projection stopped; retrying") {
			errorLines++
		}
	}
	if errorLines != 1 {
		t.Fatalf("%d retries logged as errors, want the first only:\n%s", errorLines, logs.String())
	}
	if _, err := pool.Exec(ctx, `DELETE FROM receipts WHERE receipt_id = 'stray'`); err != nil {
		t.Fatal(err)
	}
	wait.Until(t, "the receipts projection recovered once its batch commits", 30*time.Second, func() bool {
		return !slices.Contains(svc.Health.Check(), "receipts projection")
	})
	if !strings.Contains(logs.String(), `"worker":"receipts projection","message":"background worker recovered"`) {
		t.Fatalf("no recovery logged:\n%s", logs.String())
	}
}
