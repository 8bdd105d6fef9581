package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/cmd/payledger/app"
	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/internal/syncbuf"
	"github.com/payledger/payledger/migrations/pgtest"
	"github.com/payledger/payledger/projections"
)

// stuckProjectorApp builds the app on a database of the test's own, logging to the returned
// buffer, with the health's bound for a failing worker shortened to 3 s; its workers are not
// started.
func stuckProjectorApp(t *testing.T) (*app.Service, *pgxpool.Pool, *postgres.Store, *syncbuf.Buffer) {
	t.Helper()
	pool := pgtest.Pool(t)
	store := postgres.New(pool)
	logs := &syncbuf.Buffer{}
	svc, err := app.Build(context.Background(), app.Config{Store: store, Pool: pool, Now: time.Now, Log: zerolog.New(logs), Metrics: noMetrics{},
		SecretsKey: bytes.Repeat([]byte{7}, 32), JournalPath: filepath.Join(t.TempDir(), "journal.jsonl")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = svc.Journal.Close() })
	app.SetFailingFor(svc.Health, 3*time.Second)
	return svc, pool, store, logs
}

// appendGeneration appends the generation of a 1.00 direct receipt id to its stream, straight to
// the store (no at-append projection): the receipts projector applies it in a batch.
func appendGeneration(t *testing.T, store *postgres.Store, id string) eventstore.AppendResult {
	t.Helper()
	g := receipt.Generated{ReceiptID: id, Merchant: "0x" + strings.Repeat("a", 40), Source: "direct", Currency: "USD", Total: money.Cents(100),
		LineItems: []receipt.LineItem{{Kind: receipt.KindItem, Label: "x", Amount: 100, Unit: 100, Qty: 1}}, CreatedAt: 1}
	data, err := json.Marshal(g)
	if err != nil {
		t.Fatal(err)
	}
	res, err := store.Append(context.Background(), projections.ReceiptStreamPrefix+id, eventstore.NoStream(),
		eventstore.EventData{ID: uuid.New(), Type: receipt.EventGenerated, Data: data})
	if err != nil {
		t.Fatal(err)
	}
	return res
}
