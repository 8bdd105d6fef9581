package transport

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/internal/cache"
	"github.com/payledger/payledger/readmodels"
	"github.com/payledger/payledger/transport/page"
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

// statusEvent is one server-sent event of the payment page: the status, and the failure's
// catalog texts or the verified payment when there is one.
type statusEvent struct {
	ReceiptID string        `json:"receiptId"`
	Status    string        `json:"status"`
	Paid      bool          `json:"paid"`
	Failure   *page.Failure `json:"failure"`
	Payment   *page.Payment `json:"payment"`
	// What arrived at the deposit address (confirmed; null until a transfer is seen) of what is
	// required, so that the page shows an underpayment.
	AmountRequired *string `json:"amountRequired"`
	AmountReceived *string `json:"amountReceived"`
	AmountToken    string  `json:"amountToken"` // the token both are in
	PaidLate       bool    `json:"paidLate"`
}

func statusEventOf(st receipt.State) statusEvent {
	ev := statusEvent{ReceiptID: st.Receipt.ReceiptID, Status: string(st.Status),
		Paid:           st.Status == receipt.StatusPaid || st.Status == receipt.StatusReconciled,
		AmountRequired: nullable(st.AmountRequired()), AmountReceived: nullable(st.AmountReceived()), AmountToken: st.RequestedToken(),
		PaidLate: st.PaidLate()}
	ev.Failure, ev.Payment = failureView(st), paymentView(st)
	return ev
}

func failureView(st receipt.State) *page.Failure {
	f := st.FailureView()
	if f == nil {
		return nil
	}
	return &page.Failure{Code: f.Code, Description: f.Reason, Action: f.Action}
}

func paymentView(st receipt.State) *page.Payment {
	if st.Payment == nil || !st.Status.Settled() {
		return nil
	}
	p := st.Payment
	return &page.Payment{TransactionHash: p.TransactionHash, Token: p.Token, BuyerWallet: p.BuyerWallet, VerifiedBy: p.VerifiedBy}
}

// streamEnds are the statuses after which nothing more happens that the page shows.
func streamEnds(st receipt.Status) bool {
	return st == receipt.StatusReconciled || st == receipt.StatusRefundRequested || st == receipt.StatusRefunded
}

// portalEvents answers GET /api/portal/{id}/events: a text/event-stream with one `data:` JSON
// line (statusEvent) at once and then one per change of the receipts read model (read when the
// change is announced, else polled: see eventsPoll); heartbeat comments; closed when the receipt
// reaches reconciled or refunded, when the client goes, or after eventsLifetime. An unknown id
// is a plain 404 before any stream.
func (s *Server) portalEvents(c echo.Context) error {
	id := c.Param("id")
	// Subscribed before the first read: a change committed in between still wakes the stream.
	woken, unsubscribe := s.receiptWatch.subscribe(id)
	defer unsubscribe()
	row, err := s.anyReceipt(c, id)
	if err != nil {
		return err
	}
	w := c.Response()
	outliveTimeouts(w) // by design; eventsLifetime bounds it
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // a buffering proxy would hold the events back
	w.WriteHeader(http.StatusOK)
	if _, err := fmt.Fprint(w, "retry: 2000\n\n"); err != nil {
		return nil
	}
	last, err := s.sendStatus(w, row, "")
	if err != nil || streamEnds(row.State.Status) {
		return nil
	}
	s.streamChanges(c.Request().Context(), w, id, woken, last)
	return nil
}

// streamChanges sends the receipt's status whenever it changes (woken by announcements, with a
// safety read), a heartbeat meanwhile, until the status is final, the client goes, the server
// shuts down or the stream's lifetime ends. last is the event already sent.
func (s *Server) streamChanges(ctx context.Context, w *echo.Response, id string, woken <-chan struct{}, last string) {
	poll, beat := time.NewTicker(eventsPoll), time.NewTicker(eventsHeartbeat)
	defer poll.Stop()
	defer beat.Stop()
	end := time.After(eventsLifetime)
	lastRead := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case <-end:
			return
		case <-s.receiptWatch.done:
			return
		case <-beat.C:
			if _, err := fmt.Fprint(w, ": heartbeat\n\n"); err != nil {
				return
			}
			w.Flush()
			continue
		case <-woken:
		case <-poll.C:
			if s.receiptWatch.listening.Load() && time.Since(lastRead) < eventsSafety {
				continue // announced changes wake the stream; this tick is only the safety net
			}
		}
		lastRead = time.Now()
		row, err := s.receipts.Get(ctx, "", id)
		if err != nil {
			continue // the datastore may come back; the heartbeat keeps the stream open
		}
		if last, err = s.sendStatus(w, row, last); err != nil || streamEnds(row.State.Status) {
			return
		}
	}
}

// sendStatus writes row's event unless it equals last (the previous event's JSON), and returns
// the JSON sent (or last).
func (s *Server) sendStatus(w *echo.Response, row readmodels.ReceiptRow, last string) (string, error) {
	b, err := json.Marshal(statusEventOf(row.State))
	if err != nil {
		return last, err
	}
	if string(b) == last {
		return last, nil
	}
	if _, err := fmt.Fprintf(w, "id: %d\ndata: %s\n\n", row.Version, b); err != nil {
		return last, err
	}
	w.Flush()
	return string(b), nil
}
