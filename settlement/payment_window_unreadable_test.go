package settlement_test

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
)

// TestPaymentWindowPagesPastUnreadableReceipts: receipts the window cannot decide (their streams
// hold an event this build cannot read: a newer build's, during a rollback) stay first on the due
// list, oldest deadline first. A full page of them held up every expiry behind it, pass after
// pass: the next pass now reads the next page, and the receipt behind them is expired.
func TestPaymentWindowPagesPastUnreadableReceipts(t *testing.T) {
	t.Parallel()
	e := newWindowEnv(t)
	e.cfg.Batch = 2
	stuck := []string{e.receipt(), e.receipt()}
	e.advance(time.Minute)
	plain := e.receipt()
	for _, id := range stuck {
		evs, err := e.store.ReadStream(e.ctx, receipt.Stream(id), 1, 100)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.store.Append(e.ctx, receipt.Stream(id), eventstore.Exact(uint64(len(evs))),
			eventstore.EventData{ID: uuid.New(), Type: "ReceiptAnnotatedInTheFuture", Data: json.RawMessage(`{"at":2000}`)}); err != nil {
			t.Fatal(err)
		}
	}
	e.advance(2 * time.Hour)
	h := e.handler()
	expired := false
	for pass := 0; pass < 4 && !expired; pass++ {
		got, err := h.Handle(e.ctx)
		if err != nil && !errors.Is(err, receipt.ErrUnknownEvent) {
			t.Fatalf("pass %d: %v, want only the unreadable receipts' error", pass, err)
		}
		for _, c := range got {
			expired = expired || c.ReceiptID == plain
		}
	}
	if !expired || !e.state(plain).Expired() {
		t.Fatalf("the receipt behind a page of unreadable ones was not expired in 4 passes")
	}
}
