package readmodels

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/payledger/payledger/migrations/pgtest"
)

// TestOpenOnrampAttemptsReadsTheirIndexes: each part of the reconciliation's list reads its own
// partial index (receipts_open_attempts for generated and pending, receipts_ach_pending_attempts
// for ach_pending, receipts_retried_onramp_attempts for a failed receipt's retried card session,
// receipts_window_due and receipts_failed_onramp_unwindowed for the fourth part's two halves: a
// failed receipt with an earlier session in its window, and one without a window, migration 052),
// not receipts_status: without the second index its part scanned every
// ach_pending receipt's status entry every 30 s. Sequential scans are off so that the plan on an
// empty table is the one a large table gets.
func TestOpenOnrampAttemptsReadsTheirIndexes(t *testing.T) {
	t.Parallel()
	pool := pgtest.Pool(t)
	ctx := context.Background()
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err := tx.Exec(ctx, `SET LOCAL enable_seqscan = off`); err != nil {
		t.Fatal(err)
	}
	plan := explainSearch(t, tx, openOnrampAttemptsPage, time.Now(), time.Time{}, "", 100)
	for _, index := range []string{"receipts_open_attempts", "receipts_ach_pending_attempts", "receipts_retried_onramp_attempts",
		"receipts_window_due", "receipts_failed_onramp_unwindowed"} {
		if !strings.Contains(plan, index) {
			t.Errorf("the plan does not read %s:\n%s", index, plan)
		}
	}
}
