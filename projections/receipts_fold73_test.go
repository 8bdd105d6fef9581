package projections_test

import (
	"context"
	"encoding/json"
	"reflect"
	"runtime"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/domain/receipt/receipttest"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/projections"
)

// creditLedger is a fresh database whose log holds receipt id with n credits
// (receipttest.CreditStream), and the state Evolve folds from its events as stored.
func creditLedger(tb testing.TB, id string, n int) (*pgxpool.Pool, *postgres.Store, receipt.State) {
	tb.Helper()
	pool, s := streamLedger(tb, id, receipttest.CreditStream(id, n))
	want := receipt.State{}
	for _, batch := range readLog(tb, s) {
		for _, e := range batch {
			ev, err := receipt.Decode(e.Type, e.Data)
			if err != nil {
				tb.Fatal(err)
			}
			want = receipt.Evolve(want, ev)
		}
	}
	return pool, s, want
}

// readLog is the whole log in the subscription's batches.
func readLog(tb testing.TB, s *postgres.Store) [][]eventstore.RecordedEvent {
	tb.Helper()
	var out [][]eventstore.RecordedEvent
	from := eventstore.Position{}
	for {
		batch, err := s.ReadAll(context.Background(), from, postgres.SubscribeBatch)
		if err != nil {
			tb.Fatal(err)
		}
		if len(batch) == 0 {
			return out
		}
		out, from = append(out, batch), batch[len(batch)-1].Position
	}
}

// project applies the batches to the receipts projection in one transaction, as a rebuild
// replays them (the replay mark is past them: no event-log entries), and returns the stored state
// of receipt id; the transaction is rolled back.
func project(tb testing.TB, pool *pgxpool.Pool, batches [][]eventstore.RecordedEvent, id string) receipt.State {
	tb.Helper()
	ctx := context.Background()
	tx, err := pool.Begin(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	last := batches[len(batches)-1]
	if _, err := tx.Exec(ctx, `INSERT INTO projection_checkpoints (name, replay_commit, replay_prepare) VALUES ('receipts', $1, $2)`,
		int64(last[len(last)-1].Position.Commit), int64(last[len(last)-1].Position.Prepare)); err != nil {
		tb.Fatal(err)
	}
	for _, b := range batches {
		if err := projections.NewReceipts(nil).Apply(ctx, tx, b); err != nil {
			tb.Fatal(err)
		}
	}
	var raw []byte
	if err := tx.QueryRow(ctx, `SELECT state FROM receipts WHERE receipt_id = $1`, id).Scan(&raw); err != nil {
		tb.Fatal(err)
	}
	var st receipt.State
	if err := json.Unmarshal(raw, &st); err != nil {
		tb.Fatal(err)
	}
	return st
}

// roundTrip is st as the projection's JSON column gives it back.
func roundTrip(tb testing.TB, st receipt.State) receipt.State {
	tb.Helper()
	b, err := json.Marshal(st)
	if err != nil {
		tb.Fatal(err)
	}
	var out receipt.State
	if err := json.Unmarshal(b, &out); err != nil {
		tb.Fatal(err)
	}
	return out
}

// TestReceiptsProjectionFoldsCreditsAsEvolve (stop 73): the receipts projection's state of a
// receipt of 1,000 credits, replayed in the subscription's batches (each folded onto the state
// the last one stored), is Evolve's of its whole stream; and projecting it allocates in
// proportion to the stream (folded with Evolve, each credit of a batch copied the credits before
// it: about 300 MB here). The bound is not a timing.
func TestReceiptsProjectionFoldsCreditsAsEvolve(t *testing.T) {
	pool, s, want := creditLedger(t, "dust", 1000)
	batches := readLog(t, s)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got := project(t, pool, batches, "dust")
	runtime.ReadMemStats(&after)
	if len(batches) < 2 || len(got.Credits) < 700 {
		t.Fatalf("%d batches, %d credits: the stream does not span batches", len(batches), len(got.Credits))
	}
	if !reflect.DeepEqual(got, roundTrip(t, want)) {
		t.Fatalf("the projected state differs from Evolve's:\n got %+v\nwant %+v", got.Credits, want.Credits)
	}
	if mb := (after.TotalAlloc - before.TotalAlloc) >> 20; mb > 100 {
		t.Fatalf("projecting %d credits allocated %d MB: the fold is not linear in the credits", len(got.Credits), mb)
	}
}

// BenchmarkReceiptsProjectionCredits (stop 73): the receipts projection's replay of a receipt of
// 5,000 credits (about 12,000 events, 12 batches) from PostgreSQL, each batch folded onto the state
// the last one stored.
func BenchmarkReceiptsProjectionCredits(b *testing.B) {
	pool, s, _ := creditLedger(b, "dust", 5000)
	batches := readLog(b, s)
	b.ReportAllocs()
	for b.Loop() {
		project(b, pool, batches, "dust")
	}
}
