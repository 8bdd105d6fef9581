package projections_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/projections"
)

// idleWatcher is the event store's stream reads, each of which counts the sessions of the test's
// database that sit idle in a transaction while it reads.
type idleWatcher struct {
	projections.StreamReader
	pool *pgxpool.Pool

	mu        sync.Mutex
	reads     int
	idleInTxs int // the most seen during one read
}

func (w *idleWatcher) ReadStream(ctx context.Context, stream string, from uint64, limit int) ([]eventstore.RecordedEvent, error) {
	var n int
	if err := w.pool.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
		WHERE datname = current_database() AND state LIKE 'idle in transaction%'`).Scan(&n); err != nil {
		return nil, err
	}
	w.mu.Lock()
	w.reads++
	w.idleInTxs = max(w.idleInTxs, n)
	w.mu.Unlock()
	return w.StreamReader.ReadStream(ctx, stream, from, limit)
}

// TestUsersReadHistoriesBeforeTheBatchBegins: the users projector reads each paid receipt's
// history before its batch's transaction begins. It read them inside it, the transaction idle
// meanwhile; every projector transaction is ended after 30 s idle, so a batch whose reads took
// longer (1,000 confirmations over a slow link or adapter) failed and was retried the same for
// ever, crediting no one's XP again.
func TestUsersReadHistoriesBeforeTheBatchBegins(t *testing.T) {
	t.Parallel()
	pool, s := setup(t)
	buyer := "0x" + strings.Repeat("b", 40)
	var last eventstore.Position
	for _, id := range []string{"p1", "p2", "p3"} {
		appendReceiptEvent(t, s, id, receipt.Generated{ReceiptID: id, Merchant: "0x" + strings.Repeat("1", 40), Source: "direct", Currency: "USD",
			Total: 1000, LineItems: []receipt.LineItem{{Kind: receipt.KindItem, Label: "x", Amount: money.Cents(1000), Unit: 1000, Qty: 1}}, CreatedAt: 1})
		last = appendReceiptEvent(t, s, id, receipt.PaymentConfirmed{AttemptID: "a-" + id, BuyerWallet: buyer, VerifiedBy: "chain", At: 2})
	}
	w := &idleWatcher{StreamReader: s, pool: pool}
	r, _ := start(t, pool, s, projections.NewUsers(w))
	waitFor(t, r, last)
	if got := xpOf(t, pool, buyer); got != 30 {
		t.Fatalf("buyer's XP %d, want 30 (3 receipts of 10.00)", got)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.reads < 3 || w.idleInTxs != 0 {
		t.Fatalf("%d history reads, up to %d sessions idle in a transaction during one: want none (the batch's transaction not begun)", w.reads, w.idleInTxs)
	}
}
