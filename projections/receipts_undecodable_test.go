package projections_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/projections"
)

// TestReceiptsProjectorStopsOnAnEventThatDoesNotDecode: a receipt event whose data does not fit
// its type, or whose type this build does not know (a newer build wrote it), stops the runner:
// Run returns ErrUndecodable naming the event, so the worker shows as stuck on /healthz (the app
// watches Run). The event is not skipped: the checkpoint stays before it. (The runner used to
// retry the batch every second for ever, with an error line each time and /healthz ok.)
func TestReceiptsProjectorStopsOnAnEventThatDoesNotDecode(t *testing.T) {
	t.Parallel()
	cases := map[string]eventstore.EventData{
		"data that does not fit its type": {Type: receipt.EventConfirmed, Data: json.RawMessage(`{"attemptId":7,"verifiedBy":"chain"}`)},
		"a type this build does not know": {Type: "PaymentTeleported", Data: json.RawMessage(`{"at":1}`)},
	}
	for name, bad := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			stream, err := stopsAt(t, bad)
			if !errors.Is(err, projections.ErrUndecodable) || !strings.Contains(err.Error(), stream+" version 2 ("+bad.Type+")") {
				t.Fatalf("Run returned %v, want ErrUndecodable naming %s version 2", err, stream)
			}
		})
	}
}

// TestReceiptsProjectorStopsOnATextTheReadModelRefuses: an event that decodes but holds what the
// read model's jsonb cannot store (a NUL character, which the events table's json takes) fails
// every retry of its batch alike: Run returns the database's refusal (SQLSTATE 22P05) at once.
func TestReceiptsProjectorStopsOnATextTheReadModelRefuses(t *testing.T) {
	t.Parallel()
	bad := eventstore.EventData{Type: receipt.EventFailed, Data: json.RawMessage(`{"attemptId":"a","failureCode":"X","failureReason":"a\u0000b","at":2}`)}
	_, err := stopsAt(t, bad)
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "22P05" {
		t.Fatalf("Run returned %v, want the read model's refusal of the NUL (22P05)", err)
	}
}

// stopsAt runs the receipts projector over a receipt's generation and then bad (its second
// event), and returns the receipt's stream and what Run returned. The projector must have
// applied the generation and nothing after it.
func stopsAt(t *testing.T, bad eventstore.EventData) (string, error) {
	t.Helper()
	pool, s := setup(t)
	ctx := context.Background()
	g := receipt.Generated{ReceiptID: "undecodable", Merchant: "0xmerchant", Source: "direct", Currency: "USD", Total: money.Cents(100),
		LineItems: []receipt.LineItem{{Kind: receipt.KindItem, Label: "x", Amount: 100, Unit: 100, Qty: 1}}, CreatedAt: 1}
	data, err := json.Marshal(g)
	if err != nil {
		t.Fatal(err)
	}
	stream := projections.ReceiptStreamPrefix + g.ReceiptID
	good, err := s.Append(ctx, stream, eventstore.NoStream(), eventstore.EventData{ID: uuid.New(), Type: receipt.EventGenerated, Data: data})
	if err != nil {
		t.Fatal(err)
	}
	r, err := projections.NewRunner(pool, s, projections.NewReceipts(nil), zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	stopped := make(chan error, 1)
	go func() { stopped <- r.Run(runCtx) }()
	waitFor(t, r, good.Position)

	bad.ID = uuid.New()
	if _, err := s.Append(ctx, stream, eventstore.Exact(1), bad); err != nil {
		t.Fatal(err)
	}
	select {
	case err = <-stopped:
	case <-time.After(60 * time.Second): // a guard only: the runner stops at its first try
		cancel()
		err = <-stopped
	}
	var version int64
	if err := pool.QueryRow(ctx, `SELECT version FROM receipts WHERE receipt_id = $1`, g.ReceiptID).Scan(&version); err != nil || version != 1 {
		t.Fatalf("the receipt's row is at version %d (%v), want 1: the event was skipped", version, err)
	}
	if p := r.Position(); p != good.Position {
		t.Fatalf("the projector is at %v, want %v (before the event it cannot apply)", p, good.Position)
	}
	return stream, err
}
