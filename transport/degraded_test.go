package transport

import (
	"context"
	"io"
	"net/http"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/payledger/payledger/cmd/payledger/app"
	"github.com/payledger/payledger/eventstore"
)

// lostAnswer stores an append and then answers as if the connection broke during the commit,
// once armed: the outcome the client sees when PostgreSQL restarts under it.
type lostAnswer struct {
	eventstore.Store
	armed atomic.Bool
}

func (l *lostAnswer) Append(ctx context.Context, stream string, expected eventstore.ExpectedVersion, events ...eventstore.EventData) (eventstore.AppendResult, error) {
	res, err := l.Store.Append(ctx, stream, expected, events...)
	if err == nil && l.armed.CompareAndSwap(true, false) {
		return eventstore.AppendResult{}, io.ErrUnexpectedEOF
	}
	return res, err
}

// An order whose append committed but whose answer was lost is journaled as the same event, so
// the replay finds it stored and empties the journal; the receipt is readable, once. (The
// journal used to get a freshly decided event with a new id, whose replay then failed forever
// with "expected version no-stream, actual 1" and blocked every entry behind it.)
func TestOrderWithLostAppendAnswerIsJournaledAsTheSameEvent(t *testing.T) {
	t.Parallel()
	var store *lostAnswer
	journalPath := filepath.Join(t.TempDir(), "journal.jsonl")
	e := newAppEnv(t, func(c *app.Config) {
		store = &lostAnswer{Store: c.Store}
		c.Store, c.JournalPath = store, journalPath
	}, nil, nil)
	m := e.merchant(true)
	e.item(m, `{"sku":"tea","name":"Tea","priceUsd":4}`)
	store.armed.Store(true)
	rec := e.dev(m, http.MethodPost, "/api/orders", `{"items":[{"sku":"tea","qty":1}]}`)
	body := decode(t, rec)
	if rec.Code != 200 || body["degraded"] != true {
		t.Fatalf("order with a lost answer: %d %s", rec.Code, rec.Body)
	}
	id := body["receipt"].(map[string]any)["receiptId"].(string)
	if n, err := e.svc.Replayer.DrainOnce(context.Background()); err != nil || n != 1 {
		t.Fatalf("replay: %d, %v", n, err)
	}
	if p, _ := e.svc.Journal.Pending(); len(p) != 0 {
		t.Fatalf("%d journal entries left", len(p))
	}
	evs, err := store.ReadStream(context.Background(), "receipt-"+id, 1, 10)
	if err != nil || len(evs) != 1 {
		t.Fatalf("receipt stream: %d events, %v", len(evs), err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := e.dev(m, http.MethodGet, "/api/receipts/status?receiptId="+id, "")
		if got.Code == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("status after replay: %d %s", got.Code, got.Body)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
