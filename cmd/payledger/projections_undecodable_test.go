package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/migrations/pgtest"
)

// TestRebuildEndsAtAnEventThatDoesNotDecode: `projections rebuild users` over a log holding a
// receipt event whose data does not fit its type fails at once, naming the event. The replay's
// runner stopped on it (projections.ErrUndecodable), and the command waited for it until its
// 10-minute stall, then blamed an open transaction.
func TestRebuildEndsAtAnEventThatDoesNotDecode(t *testing.T) {
	t.Parallel()
	dbURL := pgtest.URL(t)
	pool := pgtest.PoolFor(t, dbURL)
	generateReceipts(t, pool, "undecodable", 1)
	bad := eventstore.EventData{ID: uuid.New(), Type: receipt.EventConfirmed, Data: json.RawMessage(`{"attemptId":7,"verifiedBy":"chain"}`)}
	if _, err := postgres.New(pool).Append(context.Background(), receipt.Stream("undecodable-0"), eventstore.Exact(1), bad); err != nil {
		t.Fatal(err)
	}
	// A guard only: the rebuild ends at its first try of the event.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	vars := map[string]string{"DATABASE_URL": dbURL, "EMBEDDED_POSTGRES": "off"}
	var out, errOut syncBuffer
	code := run(ctx, []string{"projections", "rebuild", "users"}, env(vars), &out, &errOut)
	if ctx.Err() != nil || code == 0 {
		t.Fatalf("exit %d (guard: %v): %s %s", code, ctx.Err(), out.String(), errOut.String())
	}
	if s := errOut.String(); !strings.Contains(s, `"rebuild users: the projector stopped: `) ||
		!strings.Contains(s, "event does not decode: receipt-undecodable-0 version 2 (PaymentConfirmed)") ||
		strings.Contains(s, "held back") {
		t.Fatalf("the rebuild's error does not name the event: %s", s)
	}
}
