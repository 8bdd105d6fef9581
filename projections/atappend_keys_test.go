package projections_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/journal"
	"github.com/payledger/payledger/projections"
)

// TestSealedKeysCommitWithTheirGenerations: the sealed webhook key handed over with a generation
// (ReceiptsAtAppend.AppendGeneration, the issuer's path) commits in its append's transaction,
// also when a group commit holds many appends (which it does: fewer commits than appends); an
// append that fails (its receipt id is taken) commits no key; every generation gets its row.
func TestSealedKeysCommitWithTheirGenerations(t *testing.T) {
	t.Parallel()
	pool, store, proj, r := atAppendSetup(t)
	ctx := context.Background()
	s := proj.AtAppend(store, r)
	start(t, pool, store, proj)
	generate(t, s, "taken")
	const fresh, stale = 48, 8
	begin := make(chan struct{})
	var wg sync.WaitGroup
	errs := make([]error, fresh+stale)
	results := make([]eventstore.AppendResult, fresh+stale)
	for i := range fresh + stale {
		id := fmt.Sprintf("key%d", i)
		if i >= fresh {
			id = "taken"
		}
		g := receipt.Generated{ReceiptID: id, Merchant: "0xm", Source: "order", Currency: "USD", Total: money.Cents(100),
			LineItems: []receipt.LineItem{{Kind: receipt.KindCustom, Label: "x", Amount: 100}}, CreatedAt: 1}
		data, err := json.Marshal(g)
		if err != nil {
			t.Fatal(err)
		}
		ev := eventstore.EventData{ID: uuid.New(), Type: receipt.EventGenerated, Data: data}
		key := &journal.SealedKey{ReceiptID: id, Nonce: []byte{1}, Sealed: []byte{byte(i)}}
		wg.Go(func() {
			<-begin
			results[i], errs[i] = s.AppendGeneration(ctx, projections.ReceiptStreamPrefix+id, eventstore.NoStream(), g, key, ev)
		})
	}
	close(begin)
	wg.Wait()
	var last eventstore.Position
	for i, err := range errs {
		switch {
		case i < fresh && err != nil:
			t.Fatalf("append %d: %v", i, err)
		case i >= fresh && !errors.Is(err, eventstore.ErrWrongExpectedVersion):
			t.Fatalf("append %d of a taken id: %v, want a wrong-expected-version error", i, err)
		}
		if last.Less(results[i].Position) {
			last = results[i].Position
		}
	}
	var keys, takenKeys, commits int
	if err := pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE receipt_id LIKE 'key%'), count(*) FILTER (WHERE receipt_id = 'taken')
		FROM receipt_webhook_keys`).Scan(&keys, &takenKeys); err != nil {
		t.Fatal(err)
	}
	if keys != fresh || takenKeys != 0 {
		t.Fatalf("keys stored: %d (%d of failed appends), want %d and 0", keys, takenKeys, fresh)
	}
	if err := pool.QueryRow(ctx, `SELECT count(DISTINCT tx_id) FROM events WHERE stream_id LIKE 'receipt-key%'`).Scan(&commits); err != nil {
		t.Fatal(err)
	}
	if commits >= fresh {
		t.Fatalf("%d appends took %d commits: nothing was grouped", fresh, commits)
	}
	var unkeyed int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM events e WHERE e.stream_id LIKE 'receipt-key%'
		AND NOT EXISTS (SELECT 1 FROM receipt_webhook_keys k WHERE 'receipt-' || k.receipt_id = e.stream_id)`).Scan(&unkeyed); err != nil {
		t.Fatal(err)
	}
	if unkeyed != 0 {
		t.Fatalf("%d generations stored without their key", unkeyed)
	}
	waitFor(t, r, last)
	for i := range fresh {
		if _, ok := rowAt(t, pool, fmt.Sprintf("key%d", i)); !ok {
			t.Fatalf("receipt key%d has no row", i)
		}
	}
}
