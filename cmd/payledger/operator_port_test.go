package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/memory"
	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/migrations/pgtest"
)

// TestOperatorCommandsReadThroughThePort (issue 37): `verify`, `receipts history` and
// `projections rebuild` read events only through eventstore.Store, so they give the same answers
// on the memory adapter (no PostgreSQL events table at all) as on PostgreSQL. The read models
// stay PostgreSQL tables in both cases.
func TestOperatorCommandsReadThroughThePort(t *testing.T) {
	t.Parallel()
	adapters := map[string]func(t *testing.T) eventstore.Store{
		"memory":   func(*testing.T) eventstore.Store { return memory.New(time.Now) },
		"postgres": func(t *testing.T) eventstore.Store { return postgres.New(pgtest.PoolFor(t, pgtest.URL(t))) },
	}
	for name, open := range adapters {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			store := open(t)
			for i := range 4 {
				g := receipt.Generated{ReceiptID: fmt.Sprintf("port-%d", i), Merchant: "0x" + strings.Repeat("a", 40), Currency: "USD",
					LineItems: []receipt.LineItem{{Kind: receipt.KindCustom, Label: "x", Amount: 250}}, Total: 250}
				if _, _, err := commands.GenerateReceipt(ctx, store, time.Now(), eventstore.Metadata{Actor: "test"}, g); err != nil {
					t.Fatal(err)
				}
			}
			var out bytes.Buffer
			if err := verifyLedger(ctx, store, "", zerolog.Nop(), &out); err != nil || !strings.Contains(out.String(), "ok: 4 events") {
				t.Fatalf("verify: %v %s", err, out.String())
			}
			out.Reset()
			if err := verifyLedger(ctx, store, commands.ReceiptStream("port-2"), zerolog.Nop(), &out); err != nil || !strings.Contains(out.String(), "ok: 1 events") {
				t.Fatalf("verify --stream: %v %s", err, out.String())
			}
			out.Reset()
			if err := printReceiptHistory(ctx, store, "port-1", &out); err != nil || !strings.Contains(out.String(), `"type": "ReceiptGenerated"`) ||
				!strings.Contains(out.String(), `"chainValid": true`) {
				t.Fatalf("history: %v\n%s", err, out.String())
			}
			if err := printReceiptHistory(ctx, store, "port-none", &out); err == nil {
				t.Fatal("the history of an unknown receipt was printed")
			}

			// The read models of a fresh database (no events table rows at all for the memory
			// adapter) are rebuilt from the store alone.
			pool := pgtest.PoolFor(t, pgtest.URL(t))
			if err := rebuildOne(ctx, pool, store, projectorsByName()["receipts"], zerolog.Nop()); err != nil {
				t.Fatalf("rebuild: %v", err)
			}
			var n int
			if err := pool.QueryRow(ctx, `SELECT count(*) FROM receipts WHERE receipt_id LIKE 'port-%'`).Scan(&n); err != nil || n != 4 {
				t.Fatalf("%d receipts after the rebuild (%v), want 4", n, err)
			}
			if name == "memory" {
				var events int
				if err := pool.QueryRow(ctx, `SELECT count(*) FROM events`).Scan(&events); err != nil || events != 0 {
					t.Fatalf("the events table has %d rows (%v): the rebuild did not read the memory store", events, err)
				}
			}
		})
	}
}

// TestVerifyThroughThePortFindsABrokenChain: a tampered event in the memory store is found by the
// same walk (no SQL involved).
func TestVerifyThroughThePortFindsABrokenChain(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := &tamperedStore{Store: memory.New(time.Now)}
	for i := range 3 {
		g := receipt.Generated{ReceiptID: fmt.Sprintf("tamper-%d", i), Merchant: "0x" + strings.Repeat("a", 40), Currency: "USD",
			LineItems: []receipt.LineItem{{Kind: receipt.KindCustom, Label: "x", Amount: 100}}, Total: 100}
		if _, _, err := commands.GenerateReceipt(ctx, store, time.Now(), eventstore.Metadata{}, g); err != nil {
			t.Fatal(err)
		}
	}
	store.tamper = commands.ReceiptStream("tamper-1")
	var out bytes.Buffer
	if err := verifyLedger(ctx, store, "", zerolog.Nop(), &out); !errors.Is(err, errLedgerBroken) || !strings.Contains(out.String(), "BROKEN: stream "+store.tamper) {
		t.Fatalf("verify of a tampered log: %v %s", err, out.String())
	}
	if err := printReceiptHistory(ctx, store, "tamper-1", &out); !errors.Is(err, errChainBroken) {
		t.Fatalf("history of a tampered receipt: %v", err)
	}
}

// tamperedStore changes the data of one stream's events as they are read, as an edit of the
// stored events would.
type tamperedStore struct {
	eventstore.Store
	tamper string
}

func (s *tamperedStore) forge(evs []eventstore.RecordedEvent) []eventstore.RecordedEvent {
	evs = slices.Clone(evs) // the copies change, not what the store holds
	for i := range evs {
		if evs[i].StreamID == s.tamper {
			evs[i].Data = []byte(`{"receiptId":"forged"}`)
		}
	}
	return evs
}

func (s *tamperedStore) ReadStream(ctx context.Context, stream string, from uint64, limit int) ([]eventstore.RecordedEvent, error) {
	evs, err := s.Store.ReadStream(ctx, stream, from, limit)
	return s.forge(evs), err
}

func (s *tamperedStore) ReadAll(ctx context.Context, from eventstore.Position, limit int) ([]eventstore.RecordedEvent, error) {
	evs, err := s.Store.ReadAll(ctx, from, limit)
	return s.forge(evs), err
}
