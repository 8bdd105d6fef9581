package projections_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/projections"
)

// TestBlueGreenSwapDoesNotHoldReadsBehindALongTransaction: the swap takes the receipts table in
// ACCESS EXCLUSIVE mode, and PostgreSQL queues every later read and write of the table behind that
// request. A transaction that read receipts and stays open (a session left idle in transaction, a
// backup, a long report) kept the swap waiting, and with it every order, status read and projector
// batch, for as long as it stayed open: the whole service stopped, with no error anywhere. The
// swap now waits for the lock at most projections.SwapLockTimeout at a time, lets the queue go,
// and tries again (the shadow catching up meanwhile); here a read made while the swap waits
// behind an open transaction answers within a few seconds, and the swap is done once that
// transaction ends.
func TestBlueGreenSwapDoesNotHoldReadsBehindALongTransaction(t *testing.T) {
	t.Parallel()
	pool, s := setup(t)
	ctx := context.Background()
	r, _ := start(t, pool, s, projections.NewReceipts(nil))
	var last eventstore.Position
	for i := range 5 {
		last = generate(t, s, fmt.Sprintf("held-%d", i))
	}
	waitFor(t, r, last)
	holder, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = holder.Rollback(context.Background()) }()
	if _, err := holder.Exec(ctx, `SELECT count(*) FROM receipts`); err != nil { // holds ACCESS SHARE until it ends
		t.Fatal(err)
	}
	rebuilt := make(chan error, 1)
	go func() { rebuilt <- projections.RebuildReceiptsBlueGreen(ctx, pool, s, nil) }()
	wait.Until(t, "the swap waiting for the live table's lock", 30*time.Second, func() bool {
		var waiting bool
		err := pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'relation' AND relation = 'receipts'::regclass
			AND mode = 'AccessExclusiveLock' AND NOT granted)`).Scan(&waiting)
		return err == nil && waiting
	})
	rctx, cancel := context.WithTimeout(ctx, projections.SwapLockTimeout+5*time.Second)
	defer cancel()
	var n int
	if err := pool.QueryRow(rctx, `SELECT count(*) FROM receipts`).Scan(&n); err != nil || n != 5 {
		t.Fatalf("a read while the swap waits behind an open transaction: %d receipts, %v; want 5 within %s",
			n, err, projections.SwapLockTimeout+5*time.Second)
	}
	if err := holder.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-rebuilt:
		if err != nil {
			t.Fatalf("the rebuild once the transaction ended: %v", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the rebuild did not swap within 60 s of the transaction's end")
	}
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM receipts`).Scan(&n); err != nil || n != 5 {
		t.Fatalf("after the swap: %d receipts, %v; want 5", n, err)
	}
}
