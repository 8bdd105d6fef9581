package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/memory"
	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/migrations/pgtest"
)

// TestUsersRebuildReadsThroughThePort (stop 62): `projections rebuild users` folds each paid
// receipt's history through the event-store port, so XP comes out the same on the memory adapter
// as on PostgreSQL. The users projector read the receipts' events from the PostgreSQL events
// table: on any other adapter that table is empty and every buyer's XP came out 0.
func TestUsersRebuildReadsThroughThePort(t *testing.T) {
	t.Parallel()
	adapters := map[string]func(t *testing.T) (eventstore.Store, *pgxpool.Pool){
		"memory": func(t *testing.T) (eventstore.Store, *pgxpool.Pool) {
			return memory.New(time.Now), pgtest.PoolFor(t, pgtest.URL(t))
		},
		"postgres": func(t *testing.T) (eventstore.Store, *pgxpool.Pool) {
			pool := pgtest.PoolFor(t, pgtest.URL(t))
			return postgres.New(pool), pool
		},
	}
	for name, open := range adapters {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			store, pool := open(t)
			buyer := "0x" + strings.Repeat("b", 40)
			appendXPHistory(t, store, buyer)
			if err := rebuildOne(ctx, pool, store, projectorsByName()["users"], zerolog.Nop()); err != nil {
				t.Fatalf("rebuild: %v", err)
			}
			// 123.45 USD -> 123; 10 EUR at 1.1 by the submitted wallet -> 11; refunded in full -> 0.
			var xp int64
			if err := pool.QueryRow(ctx, `SELECT coalesce((SELECT xp FROM users WHERE wallet = $1), 0)`, buyer).Scan(&xp); err != nil {
				t.Fatal(err)
			}
			if xp != 134 {
				t.Fatalf("%s: %d XP after the rebuild, want 134", name, xp)
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

// appendXPHistory stores three receipts that buyer paid: one in USD, one in EUR (quoted, the
// confirmation naming buyer in upper case), and one refunded in full.
func appendXPHistory(t *testing.T, store eventstore.Store, buyer string) {
	t.Helper()
	ctx := context.Background()
	add := func(id string, e receipt.Event) {
		data, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := store.Append(ctx, commands.ReceiptStream(id), eventstore.Any(),
			eventstore.EventData{ID: uuid.New(), Type: receipt.TypeOf(e), Data: data}); err != nil {
			t.Fatal(err)
		}
	}
	merchant := "0x" + strings.Repeat("a", 40)
	for _, r := range []struct {
		id, currency string
		total        int64
	}{{"xp-usd", "USD", 12345}, {"xp-eur", "EUR", 1000}, {"xp-refunded", "USD", 5000}} {
		g := receipt.Generated{ReceiptID: r.id, Merchant: merchant, Currency: r.currency,
			LineItems: []receipt.LineItem{{Kind: receipt.KindCustom, Label: "x", Amount: money.Cents(r.total)}}, Total: money.Cents(r.total)}
		if _, _, err := commands.GenerateReceipt(ctx, store, time.Now(), eventstore.Metadata{Actor: "test"}, g); err != nil {
			t.Fatal(err)
		}
	}
	add("xp-usd", receipt.PaymentConfirmed{AttemptID: "a-usd", BuyerWallet: buyer, VerifiedBy: "chain", At: 2})
	add("xp-eur", receipt.PaymentSubmitted{AttemptID: "a-eur", Source: "wallet", BuyerWallet: "0x" + strings.ToUpper(buyer[2:]), At: 2})
	add("xp-eur", receipt.TokenQuoted{Token: "USDC", Amount: "11", TokenUSDPrice: "1", EURUSDRate: "1.1", AmountUSD: "11.00", At: 2})
	add("xp-eur", receipt.PaymentConfirmed{AttemptID: "a-eur", BuyerWallet: "0x" + strings.ToUpper(buyer[2:]), VerifiedBy: "chain", At: 3})
	add("xp-refunded", receipt.PaymentConfirmed{AttemptID: "a-ref", BuyerWallet: buyer, VerifiedBy: "chain", At: 2})
	add("xp-refunded", receipt.RefundProcessed{AmountCents: 5000, Reason: "r", ProcessedBy: merchant, At: 4})
}
