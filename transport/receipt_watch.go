package transport

import (
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/internal/cache"
	"github.com/payledger/payledger/readmodels"
)

// Pace of the payment page's event stream. A stream reads its receipt from the read model when
// the receipts projection announces a change of it (ReceiptsChangedChannel), and at least every
// eventsSafety; while the announcements are not heard (no listener, or it is reconnecting), every
// eventsPoll. A comment line keeps proxies from closing an idle stream every eventsHeartbeat; a
// stream ends after eventsLifetime (the browser reconnects by itself), so that no connection is
// held forever.
const (
	eventsPoll      = 500 * time.Millisecond
	eventsSafety    = 5 * time.Second
	eventsHeartbeat = 15 * time.Second
	eventsLifetime  = 10 * time.Minute
)

// receiptWatch wakes the event streams of receipts announced as changed, and ends them all when
// the HTTP server shuts down (a stream would otherwise hold the drain until its lifetime ends).
type receiptWatch struct {
	listening atomic.Bool
	mu        sync.Mutex
	subs      map[string]map[chan struct{}]struct{}
	done      chan struct{}
	stopOnce  sync.Once
}

// newReceiptWatch registers the watch with inv (before inv runs; nil inv: never listening) and
// with srv's shutdown (nil srv: only stop ends the streams).
func newReceiptWatch(inv *cache.Invalidations, srv *http.Server) *receiptWatch {
	w := &receiptWatch{subs: map[string]map[chan struct{}]struct{}{}, done: make(chan struct{})}
	if inv != nil {
		inv.Register(readmodels.ReceiptsChangedChannel, cache.Subscriber{OnNotify: w.notify, OnListening: w.setListening})
	}
	if srv != nil {
		srv.RegisterOnShutdown(w.stop)
	}
	return w
}

// stop ends every stream (their clients reconnect to another instance, or after the restart).
func (w *receiptWatch) stop() { w.stopOnce.Do(func() { close(w.done) }) }

func (w *receiptWatch) setListening(on bool) {
	w.listening.Store(on)
	w.notify("*") // whatever was missed meanwhile: every stream reads once
}

func (w *receiptWatch) notify(payload string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	wake := func(chs map[chan struct{}]struct{}) {
		for ch := range chs {
			select {
			case ch <- struct{}{}:
			default: // already woken
			}
		}
	}
	if payload == "" || payload == "*" {
		for _, chs := range w.subs {
			wake(chs)
		}
		return
	}
	for _, id := range strings.Split(payload, ",") {
		wake(w.subs[id])
	}
}

// subscribe returns a channel woken when id changes, and the function that unsubscribes.
func (w *receiptWatch) subscribe(id string) (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	w.mu.Lock()
	if w.subs[id] == nil {
		w.subs[id] = map[chan struct{}]struct{}{}
	}
	w.subs[id][ch] = struct{}{}
	w.mu.Unlock()
	return ch, func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		delete(w.subs[id], ch)
		if len(w.subs[id]) == 0 {
			delete(w.subs, id)
		}
	}
}

// streamEnds are the statuses after which nothing more happens that the page shows.
func streamEnds(st receipt.Status) bool {
	return st == receipt.StatusReconciled || st == receipt.StatusRefundRequested || st == receipt.StatusRefunded
}
