package dashboard

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/payledger/payledger/transport"
)

// dashLiveMax bounds the receipts one list's stream follows: a page shows 25, a search 50.
const dashLiveMax = 50

var dashLiveID = regexp.MustCompile(`^[A-Za-z0-9_-]{1,100}$`)

// dashLiveIDs reads ?ids=a,b: distinct receipt ids, at most dashLiveMax, each well formed.
func dashLiveIDs(raw string) ([]string, error) {
	parts := strings.Split(raw, ",")
	if raw == "" || len(parts) > dashLiveMax {
		return nil, transport.InvalidInput(fmt.Sprintf("ids must list 1 to %d receipt ids, comma-separated", dashLiveMax))
	}
	seen := map[string]bool{}
	var ids []string
	for _, id := range parts {
		if !dashLiveID.MatchString(id) {
			return nil, transport.InvalidInput("ids: " + clip(id) + " is not a receipt id")
		}
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// dashStatus is one event of the list's stream.
type dashStatus struct {
	ReceiptID string `json:"receiptId"`
	Status    string `json:"status"`
}

// dashEvents answers GET /dashboard/events?ids=a,b (session): a text/event-stream of
// {receiptId, status} for those of the ids that are the signed-in merchant's receipts (another
// merchant's or an unknown id is silently left out), once at the start and then on each change,
// so the receipts list updates its badges live. It takes one of the merchant's stream slots, as
// /api/webhooks/stream does (429 when none is left). Woken as the payment page's stream is (by
// the receipts projection's announcements), with a read of every id each
// transport.EventsSafety; heartbeats, transport.EventsLifetime and the server's shutdown as
// there.
func (s *dash) dashEvents(c echo.Context) error {
	ids, err := dashLiveIDs(c.QueryParam("ids"))
	if err != nil {
		return err
	}
	sess, _ := transport.SessionFrom(c) // an admin route: the session's merchant
	// A slot before any watch: each stream holds up to dashLiveMax watches and forwarders for
	// EventsLifetime, so a merchant's open streams are bounded as the API's are.
	give, err := s.r.TakeStreamSlot(c, sess.Wallet)
	if err != nil {
		return err
	}
	defer give()
	stop := make(chan struct{})
	defer close(stop)
	// Subscribed before the first read: a change committed in between still wakes the stream.
	// One forwarder per id (at most dashLiveMax) fans the wake-ups into one channel; the buffer
	// holds one per id, so a forwarder never waits long.
	wake := make(chan string, len(ids))
	for _, id := range ids {
		woken, unsubscribe := s.r.WatchReceipt(id)
		defer unsubscribe()
		go func() {
			for {
				select {
				case <-stop:
					return
				case <-woken:
					select {
					case wake <- id:
					case <-stop:
						return
					}
				}
			}
		}()
	}
	w := c.Response()
	transport.OutliveTimeouts(w) // by design; the stream's lifetime bounds it
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	if _, err := fmt.Fprint(w, "retry: 2000\n\n"); err != nil {
		return nil
	}
	ctx, end := s.r.WhileAuthorized(c) // ends with the session that opened it (logout, expiry)
	defer end()
	s.dashStream(ctx, w, sess.Wallet, ids, wake)
	return nil
}

// dashStream sends the ids' statuses as they change until the client goes, the server shuts
// down or the stream's lifetime ends.
func (s *dash) dashStream(ctx context.Context, w *echo.Response, merchant string, ids []string, wake <-chan string) {
	last := map[string]string{}
	send := func(list []string) error {
		for _, id := range list {
			row, err := s.Receipts.Get(ctx, merchant, id)
			if err != nil || last[id] == string(row.State.Status) {
				continue // not this merchant's, or the datastore may come back; or unchanged
			}
			last[id] = string(row.State.Status)
			b, _ := json.Marshal(dashStatus{ReceiptID: id, Status: last[id]})
			if _, err := fmt.Fprintf(w, "data: %s\n\n", b); err != nil {
				return err
			}
		}
		w.Flush()
		return nil
	}
	if send(ids) != nil {
		return
	}
	safety, beat := time.NewTicker(transport.EventsSafety), time.NewTicker(transport.EventsHeartbeat)
	defer safety.Stop()
	defer beat.Stop()
	end := time.After(transport.EventsLifetime)
	for {
		var err error
		select {
		case <-ctx.Done():
			return
		case <-end:
			return
		case <-s.r.Stopping():
			return
		case <-beat.C:
			if _, err = fmt.Fprint(w, ": heartbeat\n\n"); err == nil {
				w.Flush()
			}
		case id := <-wake:
			err = send([]string{id})
		case <-safety.C:
			err = send(ids)
		}
		if err != nil {
			return
		}
	}
}
