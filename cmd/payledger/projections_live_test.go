package main

import (
	"testing"

	"github.com/payledger/payledger/projections"
)

// The runner `projections rebuild receipts` starts to bring the live projector to the log's head
// may lead it (serve's leader away: an error, a failover, serve stopped): it must record the
// merchants' event log as serve's does, or the events it applies never reach the merchants'
// webhook endpoints (stop 61: it ran a bare projections.Receipts{}).
func TestRebuildRunsTheReceiptsProjectorAsServeDoes(t *testing.T) {
	t.Parallel()
	r, ok := projectorsByName()["receipts"].(projections.Receipts)
	if !ok || !r.EventLog {
		t.Fatalf("the rebuild's receipts projector: %#v", projectorsByName()["receipts"])
	}
}
