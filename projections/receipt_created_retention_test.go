package projections_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/migrations/pgtest"
	"github.com/payledger/payledger/projections"
)

// TestReceiptCreatedSkipsGenerationsOlderThanTheLogKeeps (stop 67): the event log is pruned
// after 30 days, and with an entry goes the key that records it once. A rebuild of the
// receipt_created projector replaying an older generation recorded its receipt.created again,
// under a new webhook-id: the merchant was told of a receipt made long ago as new. A generation
// older than the log keeps is not announced; a recent one is.
func TestReceiptCreatedSkipsGenerationsOlderThanTheLogKeeps(t *testing.T) {
	t.Parallel()
	pool := pgtest.Pool(t)
	ctx := context.Background()
	gen := func(id string, at time.Time) eventstore.RecordedEvent {
		g := receipt.Generated{ReceiptID: id, Merchant: "0xm", Source: "order", Currency: "USD", Total: money.Cents(250),
			LineItems: []receipt.LineItem{{Kind: receipt.KindItem, Label: "Latte", Amount: 250, Unit: 125, Qty: 2}}, CreatedAt: at.UnixMilli()}
		data, err := json.Marshal(g)
		if err != nil {
			t.Fatal(err)
		}
		return eventstore.RecordedEvent{ID: uuid.New(), StreamID: projections.ReceiptStreamPrefix + id, Type: receipt.EventGenerated,
			Data: data, RecordedAt: at}
	}
	events := []eventstore.RecordedEvent{gen("made-long-ago", time.Now().Add(-40*24*time.Hour)), gen("made-today", time.Now())}
	if err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error { return projections.ReceiptCreated{}.Apply(ctx, tx, events) }); err != nil {
		t.Fatal(err)
	}
	rows, err := pool.Query(ctx, `SELECT event_key FROM webhook_events ORDER BY seq`)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 1 || keys[0] != "receipt-created:made-today" {
		t.Fatalf("recorded %v, want only receipt-created:made-today", keys)
	}
}
