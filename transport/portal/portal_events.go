package portal

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/readmodels"
	"github.com/payledger/payledger/transport"
	"github.com/payledger/payledger/transport/page"
)

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
	// WindowEnded: the payment window is over and the receipt unpaid (windowEnded): no payment
	// can be started, so the page shows no controls; WindowNote says what becomes of a late
	// payment (null while the window is open).
	WindowEnded bool    `json:"windowEnded"`
	WindowNote  *string `json:"windowNote"`
	// InProgress: a payment is being confirmed (receipt.State.PaymentInProgress), so the page
	// hides its controls; false on a pending receipt whose attempt ended short (a reopened ACH
	// payment) with nothing confirming, which waits for the customer to pay again. The page read
	// every pending status as in progress, and that receipt offered no way to pay.
	InProgress bool `json:"inProgress"`
}

// statusEventOf is st as the page's status shows it at now (Unix ms).
func statusEventOf(st receipt.State, now int64) statusEvent {
	ev := statusEvent{ReceiptID: st.Receipt.ReceiptID, Status: string(st.Status),
		Paid:           st.Status == receipt.StatusPaid || st.Status == receipt.StatusReconciled,
		AmountRequired: nullable(st.AmountRequired()), AmountReceived: nullable(st.AmountReceived()), AmountToken: st.RequestedToken(),
		PaidLate: st.PaidLate(), WindowEnded: windowEnded(st, now), WindowNote: nullable(windowNote(st, now)), InProgress: st.PaymentInProgress()}
	ev.Failure, ev.Payment = failureView(st), paymentView(st)
	return ev
}

// portalStatus answers GET /api/portal/{id}/status: the page's status as one event of its stream
// carries it (statusEvent), for the page's polling when the stream cannot be held open (a proxy
// that buffers it). /api/terminal/check-payment, which the page polled before, answers the
// status alone: an underpaid receipt then read as not underpaid, and the page hid the controls
// the customer needed to pay the rest.
func (s *handlers) portalStatus(c echo.Context) error {
	row, err := s.anyReceipt(c, c.Param("id"))
	if err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return c.JSON(http.StatusOK, statusEventOf(row.State, s.r.Now().UnixMilli()))
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

// portalEvents answers GET /api/portal/{id}/events: a text/event-stream with one `data:` JSON
// line (statusEvent) at once and then one per change of the receipts read model (read when the
// change is announced, else polled: see transport.EventsPoll); heartbeat comments; closed when the receipt
// reaches reconciled or refunded, when the client goes, or after transport.EventsLifetime. An unknown id
// is a plain 404 before any stream.
func (s *handlers) portalEvents(c echo.Context) error {
	id := c.Param("id")
	// An IPv6 client's /64 (it has every address in it), its /56 at ratelimit.WiderMultiple
	// times the bound and its /48 at WiderMultiple times the /56's.
	addr := transport.ClientAddress(c)
	if !s.streams.TakeAddress(addr) {
		return transport.NoSlot("Too many open event streams from this address or its network, or on this instance", time.Now())
	}
	defer s.streams.GiveAddress(addr)
	// Subscribed before the first read: a change committed in between still wakes the stream.
	woken, unsubscribe := s.r.WatchReceipt(id)
	defer unsubscribe()
	row, err := s.anyReceipt(c, id)
	if err != nil {
		return err
	}
	w := c.Response()
	transport.OutliveTimeouts(w) // by design; transport.EventsLifetime bounds it
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // a buffering proxy would hold the events back
	w.WriteHeader(http.StatusOK)
	if _, err := fmt.Fprint(w, "retry: 2000\n\n"); err != nil {
		return nil
	}
	last, err := s.sendStatus(w, row, "")
	if err != nil || transport.StreamEnds(row.State.Status) {
		return nil
	}
	s.streamChanges(c.Request().Context(), w, id, woken, last)
	return nil
}

// Bounds of the payment page's event streams. Each holds a goroutine, a receipt watch and a
// connection for up to transport.EventsLifetime (10 minutes), and the route is public: the
// per-minute limit per address let one address hold hundreds at once. A customer's page opens
// one stream per tab; 20 leave room for the customers of a shop behind one address (an office,
// a carrier's NAT); an IPv6 client's /56 holds 4 times that, all its /64s together
// (transport.Slots.TakeAddress). Past a bound the answer is 429 rate_limited with resetAt, as a
// merchant's streams past theirs (transport.NoSlot); the page's client retries.
const (
	streamsPerAddress  = 20
	streamsPerInstance = 2000
)

// streamChanges sends the receipt's status whenever it changes (woken by announcements, with a
// safety read), a heartbeat meanwhile, until the status is final, the client goes, the server
// shuts down or the stream's lifetime ends. last is the event already sent.
func (s *handlers) streamChanges(ctx context.Context, w *echo.Response, id string, woken <-chan struct{}, last string) {
	poll, beat := time.NewTicker(transport.EventsPoll), time.NewTicker(transport.EventsHeartbeat)
	defer poll.Stop()
	defer beat.Stop()
	end := time.After(transport.EventsLifetime)
	lastRead := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case <-end:
			return
		case <-s.r.Stopping():
			return
		case <-beat.C:
			if _, err := fmt.Fprint(w, ": heartbeat\n\n"); err != nil {
				return
			}
			w.Flush()
			continue
		case <-woken:
		case <-poll.C:
			if s.r.Listening() && time.Since(lastRead) < transport.EventsSafety {
				continue // announced changes wake the stream; this tick is only the safety net
			}
		}
		lastRead = time.Now()
		row, err := s.Receipts.Get(ctx, "", id)
		if err != nil {
			continue // the datastore may come back; the heartbeat keeps the stream open
		}
		if last, err = s.sendStatus(w, row, last); err != nil || transport.StreamEnds(row.State.Status) {
			return
		}
	}
}

// sendStatus writes row's event unless it equals last (the previous event's JSON), and returns
// the JSON sent (or last).
func (s *handlers) sendStatus(w *echo.Response, row readmodels.ReceiptRow, last string) (string, error) {
	b, err := json.Marshal(statusEventOf(row.State, s.r.Now().UnixMilli()))
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
