package projections_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/payledger/payledger/projections"
)

// A migration of a rolling upgrade that changes the live receipts table while a blue/green
// rebuild runs (here: a column added) is not undone by the swap: the shadow, made LIKE the live
// table when the rebuild began, lacked the column, the swap dropped it with the live table, and
// the upgraded instances' statements failed. The swap is refused (ErrLiveTableChanged), the live
// table keeps its rows and the column, and the rebuild run again swaps in a table that has it.
func TestBlueGreenRebuildRefusesALiveTableChangedMeanwhile(t *testing.T) {
	t.Parallel()
	pool, s := setup(t)
	ctx := context.Background()
	r, _ := start(t, pool, s, projections.NewReceipts(nil))
	p := &depositPayer{t: t, s: s, r: r}
	const n = 3
	for range n {
		p.pay(p.receipt())
	}
	var once sync.Once
	migrate := func(uint64) {
		once.Do(func() {
			if _, err := pool.Exec(ctx, `ALTER TABLE receipts ADD COLUMN note text NOT NULL DEFAULT ''`); err != nil {
				t.Error(err)
			}
		})
	}
	err := projections.RebuildReceiptsBlueGreen(ctx, pool, s, migrate)
	column := func() (rows int, hasNote bool) {
		t.Helper()
		if err := pool.QueryRow(ctx, `SELECT count(*), EXISTS (SELECT 1 FROM information_schema.columns
			WHERE table_name = 'receipts' AND column_name = 'note') FROM receipts`).Scan(&rows, &hasNote); err != nil {
			t.Fatal(err)
		}
		return rows, hasNote
	}
	if rows, hasNote := column(); !errors.Is(err, projections.ErrLiveTableChanged) || rows != n || !hasNote {
		t.Fatalf("rebuild while the live table changed: %v; then %d receipts, column kept %v; want ErrLiveTableChanged, %d, true", err, rows, hasNote, n)
	}
	if err := projections.RebuildReceiptsBlueGreen(ctx, pool, s, nil); err != nil {
		t.Fatalf("the rebuild run again: %v", err)
	}
	if rows, hasNote := column(); rows != n || !hasNote {
		t.Fatalf("after the rebuild run again: %d receipts, column %v", rows, hasNote)
	}
}
