package transport

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payledger/payledger/readmodels"
)

// A receipt acknowledged with a plain 200 whose read-model row a crash of PostgreSQL took back
// (the projector commits asynchronously; its event is stored synchronously) is still found:
// the status read folds it from the event log instead of answering 404.
func TestStatusReadOfAReceiptWhoseRowWasLost(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(true)
	id := e.receiptFor(m, "12.50")
	if _, err := e.pool.Exec(context.Background(), `DELETE FROM receipts WHERE receipt_id = $1`, id); err != nil {
		t.Fatal(err)
	}
	st := e.status(m, id)
	if st["status"] != "generated" || st["totalUsd"] != 12.5 || st["merchantWallet"] != m.wallet {
		t.Fatalf("status folded from the events: %v", st)
	}
	// Still another merchant's receipt is not found, nor an unknown one.
	other := e.merchant(true)
	for _, who := range []merchant{other, m} {
		path := "/api/receipts/status?receiptId=" + id
		if who.wallet == m.wallet {
			path = "/api/receipts/status?receiptId=rcpt_unknown"
		}
		if rec := e.dev(who, http.MethodGet, path, ""); rec.Code != 404 {
			t.Fatalf("%s: %d %s", path, rec.Code, rec.Body)
		}
	}
}

// downable reads receipts, or, when down, answers with the errors of an unreachable datastore;
// everything else the server needs of the read model is the reachable one's.
type downable struct {
	*readmodels.Receipts
	dead ReceiptReader
	down atomic.Bool
}

func (d *downable) reader() ReceiptReader {
	if d.down.Load() {
		return d.dead
	}
	return d.Receipts
}

func (d *downable) Get(ctx context.Context, merchant, id string) (readmodels.ReceiptRow, error) {
	return d.reader().Get(ctx, merchant, id)
}

func (d *downable) List(ctx context.Context, merchant, status string, limit int, cursor string) ([]readmodels.ReceiptRow, string, error) {
	return d.reader().List(ctx, merchant, status, limit, cursor)
}

// A status read while the database is unreachable is 503 datastore_unavailable, never 404.
func TestStatusReadWhileTheDatabaseIsUnreachable(t *testing.T) {
	t.Parallel()
	dead, err := pgxpool.New(context.Background(), "postgres://postgres@127.0.0.1:1/none?connect_timeout=1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(dead.Close)
	d := &downable{dead: readmodels.NewReceipts(dead)}
	e := newEnv(t, func(deps *testDeps) {
		d.Receipts = deps.Receipts.(*readmodels.Receipts)
		deps.Receipts = d
	})
	m := e.merchant(true)
	id := e.receiptFor(m, "3")
	d.down.Store(true)
	for _, rid := range []string{id, "rcpt_never_read"} {
		rec := e.dev(m, http.MethodGet, "/api/receipts/status?receiptId="+rid, "")
		if rec.Code != 503 || decode(t, rec)["error"] != "datastore_unavailable" {
			t.Fatalf("status read of %s with the database unreachable: %d %s", rid, rec.Code, rec.Body)
		}
	}
}
