package projections_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/projections"
)

// heldReader is a log whose first read says so (reading) and then waits for release: it holds a
// rebuild between the creation of its shadow table and its replay.
type heldReader struct {
	projections.LogReader
	once             sync.Once
	reading, release chan struct{}
}

func (h *heldReader) ReadAll(ctx context.Context, from eventstore.Position, limit int) ([]eventstore.RecordedEvent, error) {
	h.once.Do(func() { close(h.reading); <-h.release })
	return h.LogReader.ReadAll(ctx, from, limit)
}

// Two blue/green rebuilds of receipts at once (two operators, a scheduled rebuild overlapping a
// manual one) share one shadow table by name: the second dropped and created it again while the
// first was replaying, and the first swapped in the second's table, empty, for the live one: every
// receipt was gone from reads, lists and the deposit watch. A second rebuild is now refused while
// one runs (projections.ErrRebuildRunning), and the first swaps in its own whole table.
func TestASecondBlueGreenRebuildIsRefusedWhileOneRuns(t *testing.T) {
	t.Parallel()
	pool, s := setup(t)
	ctx := context.Background()
	r, _ := start(t, pool, s, projections.NewReceipts(nil))
	p := &depositPayer{t: t, s: s, r: r}
	const n = 5
	for range n {
		p.pay(p.receipt())
	}
	second := &heldReader{LogReader: s, reading: make(chan struct{}), release: make(chan struct{})}
	secondDone := make(chan error, 1)
	var once sync.Once
	first := func(uint64) {
		// The first rebuild has replayed into its shadow: the second starts now, and either is
		// refused or has created its shadow table and is about to replay.
		once.Do(func() {
			go func() { secondDone <- projections.RebuildReceiptsBlueGreen(ctx, pool, second, nil) }()
			select {
			case <-second.reading:
			case err := <-secondDone:
				secondDone <- err
			}
		})
	}
	firstErr := projections.RebuildReceiptsBlueGreen(ctx, pool, s, first)
	close(second.release)
	secondErr := <-secondDone
	var rows int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM receipts`).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if rows != n {
		t.Fatalf("%d receipts readable after two rebuilds at once (first: %v, second: %v), want %d", rows, firstErr, secondErr, n)
	}
	if firstErr != nil {
		t.Fatalf("first rebuild: %v", firstErr)
	}
	if !errors.Is(secondErr, projections.ErrRebuildRunning) {
		t.Fatalf("second rebuild while the first ran: %v, want ErrRebuildRunning", secondErr)
	}
	// Once the first is done, a rebuild runs again.
	if err := projections.RebuildReceiptsBlueGreen(ctx, pool, s, nil); err != nil {
		t.Fatalf("a rebuild after the first ended: %v", err)
	}
}
