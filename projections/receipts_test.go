package projections_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/projections"
)

// TestReceiptsProjectorNeverOverwritesAnUnexpectedRow: a new receipt is inserted, not upserted. A
// row that cannot legitimately exist (its receipt's first event is not applied yet) stops the
// batch, leaves the row and the checkpoint alone, and is not silently replaced; the receipt after
// it in the log is therefore not applied either, and nothing is lost: removing the stray row lets
// the projector go on.
func TestReceiptsProjectorNeverOverwritesAnUnexpectedRow(t *testing.T) {
	t.Parallel()
	pool, s := setup(t)
	ctx := context.Background()
	generate := func(id string) eventstore.Position {
		g := receipt.Generated{ReceiptID: id, Merchant: "0x" + id, Source: "direct", Currency: "USD", Total: money.Cents(100),
			LineItems: []receipt.LineItem{{Kind: receipt.KindItem, Label: "x", Amount: 100, Unit: 100, Qty: 1}}, CreatedAt: 1}
		data, err := json.Marshal(g)
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.Append(ctx, projections.ReceiptStreamPrefix+id, eventstore.NoStream(),
			eventstore.EventData{ID: uuid.New(), Type: receipt.EventGenerated, Data: data})
		if err != nil {
			t.Fatal(err)
		}
		return res.Position
	}
	if _, err := pool.Exec(ctx, `INSERT INTO receipts (receipt_id, merchant_wallet, status, currency, total_cents, created_at, updated_at,
		version, pos_commit, pos_prepare, state) VALUES ('stray', '0xother', 'paid', 'USD', 1, now(), now(), 9, 0, 0, '{"marker": true}')`); err != nil {
		t.Fatal(err)
	}
	generate("stray")
	after := generate("after")
	var logs syncBuffer
	r, err := projections.NewRunner(pool, s, projections.NewReceipts(nil), zerolog.New(&logs))
	if err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); _ = r.Run(runCtx) }()
	t.Cleanup(func() { cancel(); <-done })
	// A batch and at least one retry stopped on the stray row.
	if !wait.Poll(30*time.Second, func() bool { return strings.Count(logs.String(), "projection stopped") >= 2 }) {
		t.Fatalf("the projector did not stop twice on the stray row:\n%s", logs.String())
	}
	if !r.Position().Less(after) {
		t.Fatal("the projector passed a receipt whose row already existed")
	}
	var marker bool
	var n int
	if err := pool.QueryRow(ctx, `SELECT coalesce((state->>'marker')::bool, false) FROM receipts WHERE receipt_id = 'stray'`).Scan(&marker); err != nil || !marker {
		t.Fatalf("stray row overwritten (marker %v, %v)", marker, err)
	}
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM receipts WHERE receipt_id = 'after'`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("receipt after the stuck batch: %d rows, %v", n, err)
	}
	if _, err := pool.Exec(ctx, `DELETE FROM receipts WHERE receipt_id = 'stray'`); err != nil {
		t.Fatal(err)
	}
	waitFor(t, r, after)
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM receipts WHERE receipt_id IN ('stray', 'after') AND status = 'generated'`).Scan(&n); err != nil || n != 2 {
		t.Fatalf("after the stray row is gone: %d receipts generated, %v", n, err)
	}
}
