package webhooks

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/readmodels"
)

// receiver answers every request with code, or, when hang, waits until the sender gives up. It
// counts requests per receipt.
type receiver struct {
	mu   sync.Mutex
	code int
	hits map[string]int
	srv  *httptest.Server
}

func newReceiver(t *testing.T, code int, hang bool) *receiver {
	t.Helper()
	r := &receiver{code: code, hits: map[string]int{}}
	release := make(chan struct{})
	r.srv = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		var p struct {
			ReceiptID string `json:"receiptId"`
		}
		_ = json.Unmarshal(body, &p)
		r.mu.Lock()
		r.hits[p.ReceiptID]++
		r.mu.Unlock()
		if hang {
			select {
			case <-req.Context().Done():
			case <-release:
			}
			return
		}
		rw.WriteHeader(r.code)
	}))
	t.Cleanup(r.srv.Close)
	t.Cleanup(func() { close(release) }) // runs before Close: no handler still hangs
	return r
}

func (r *receiver) count(id string) int { r.mu.Lock(); defer r.mu.Unlock(); return r.hits[id] }

func (r *receiver) total() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, c := range r.hits {
		n += c
	}
	return n
}

// markedReceipts makes n paid receipts hooked to url whose notifications carry the
// pending-delivery marker (as after a failed first attempt and automatic retry), due in a minute.
func (w *world) markedReceipts(t *testing.T, prefix string, n int, url string) []string {
	t.Helper()
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("%s-%d", prefix, i)
		w.paidReceipt(t, ids[i], url, "plk_secret")
	}
	if _, err := w.pool.Exec(context.Background(), `UPDATE webhook_notifications SET state = 'marked', attempts = 2,
		marked_at = now(), next_attempt_at = now() + interval '1 minute' WHERE receipt_id = ANY($1)`, ids); err != nil {
		t.Fatal(err)
	}
	return ids
}

// TestReconcileAllTriesEachMarkedNotificationOnce: POST /api/cron/reconcile (ReconcileMarked
// with all) over more marked notifications than one claim takes, all of whose receivers keep
// failing, tries each once and returns; it used to claim the same ones again and again until the
// request was cancelled.
func TestReconcileAllTriesEachMarkedNotificationOnce(t *testing.T) {
	t.Parallel()
	// The receivers answer at once; an attempt's 1 s default timeout ran out before one reached
	// its receiver under full CI's load (stop 75), which then counted no request.
	w := newWorld(t, func(d *Dispatcher) { d.Workers = -1; d.Timeout = 20 * time.Second })
	r := newReceiver(t, http.StatusServiceUnavailable, false)
	ids := w.markedReceipts(t, "rc-once", reconcileBatch+10, r.srv.URL)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for run := 1; run <= 2; run++ { // a second run tries every one again, once
		tried, delivered, err := w.disp.ReconcileMarked(ctx, true)
		if err != nil || tried != len(ids) || delivered != 0 {
			t.Fatalf("run %d: tried %d, delivered %d, %v; want %d tried once each", run, tried, delivered, err, len(ids))
		}
		for _, id := range ids {
			if n := r.count(id); n != run {
				t.Fatalf("run %d: %s received %d requests, want %d", run, id, n, run)
			}
			if st := w.state(t, id); st != readmodels.NoteMarked {
				t.Fatalf("run %d: %s is %s", run, id, st)
			}
		}
	}
}

// TestReconcileSendsWithinItsLease: a reconciliation run whose receivers hang until the
// attempt's timeout finishes its claimed batch before the lease runs out, so that no other
// instance claims (and sends again) a notification it still holds. Sent one after another, the
// batch outlived its lease, and a second run then sent the same notifications again.
func TestReconcileSendsWithinItsLease(t *testing.T) {
	t.Parallel()
	w := newWorld(t, func(d *Dispatcher) { d.Workers = -1; d.Timeout = 500 * time.Millisecond; d.lease = 2 * time.Second })
	r := newReceiver(t, 0, true)
	ids := w.markedReceipts(t, "rc-lease", 9, r.srv.URL)
	ctx := context.Background()
	done := make(chan struct{})
	var tried int
	var err error
	go func() { defer close(done); tried, _, err = w.disp.ReconcileMarked(ctx, true) }()
	// Until the run ends, look for a notification it claimed whose lease has run out unrecorded.
	expired := false
	wait.Until(t, "the run to end or a lease to expire", 30*time.Second, func() bool {
		select {
		case <-done:
			return true
		default:
		}
		var n int
		if err := w.pool.QueryRow(ctx, `SELECT count(*) FROM webhook_notifications
			WHERE lease_token IS NOT NULL AND lease_until < now()`).Scan(&n); err != nil {
			t.Error(err)
			return true
		}
		expired = n > 0
		return expired
	})
	if expired { // what another instance does then: a run of its own
		if _, _, err := w.disp.ReconcileMarked(ctx, true); err != nil {
			t.Fatal(err)
		}
	}
	<-done
	if err != nil || tried != len(ids) {
		t.Fatalf("run: tried %d, %v", tried, err)
	}
	for _, id := range ids {
		if n := r.count(id); n != 1 {
			t.Errorf("%s received %d requests, want 1 (lease expired during the run: %v)", id, n, expired)
		}
	}
}

// TestReconciliationBackoff: the marker waits 1 min, then each failed reconciliation attempt
// doubles the wait, 2 min, 4 min ... at most 6 h (docs/webhooks.md), counted from the attempt.
func TestReconciliationBackoff(t *testing.T) {
	t.Parallel()
	now := time.Now()
	w := newWorld(t, func(d *Dispatcher) { d.Workers = -1; d.Now = func() time.Time { return now } })
	r := newReceiver(t, http.StatusInternalServerError, false)
	w.paidReceipt(t, "rc-backoff", r.srv.URL, "plk_secret")
	ctx := context.Background()
	// The automatic retry is due: its failure sets the marker.
	if _, err := w.pool.Exec(ctx, `UPDATE webhook_notifications SET state = 'retrying', attempts = 1 WHERE receipt_id = 'rc-backoff'`); err != nil {
		t.Fatal(err)
	}
	want := []time.Duration{time.Minute, 2 * time.Minute, 4 * time.Minute, 8 * time.Minute, 16 * time.Minute, 32 * time.Minute,
		64 * time.Minute, 128 * time.Minute, 256 * time.Minute, 6 * time.Hour, 6 * time.Hour, 6 * time.Hour}
	for i, next := range want {
		claimed, err := w.disp.Outbox.Claim(ctx, []string{readmodels.NoteRetrying, readmodels.NoteMarked}, true, 1, leaseFor)
		if err != nil || len(claimed) != 1 {
			t.Fatalf("claim %d: %d, %v", i, len(claimed), err)
		}
		out := w.disp.Deliver(ctx, claimed[0])
		if out.State != readmodels.NoteMarked || out.NextAt.Sub(now) != next {
			t.Errorf("after failed attempt %d: %s, next in %v, want marked, next in %v", claimed[0].Attempts+1, out.State, out.NextAt.Sub(now), next)
		}
	}
}

// TestAttemptCutShortByShutdownIsNotCounted: an attempt the service itself stops (its context
// ends, as at shutdown during a rolling restart) is not the receiver's failure: no attempt is
// recorded, the schedule is not advanced, and the lease is released so that the notification or
// message is due again at once.
func TestAttemptCutShortByShutdownIsNotCounted(t *testing.T) {
	t.Parallel()
	w := newWorld(t, func(d *Dispatcher) { d.Workers = -1; d.Timeout = time.Minute })
	endpoints := readmodels.NewEndpoints(w.pool, w.keys)
	w.disp.Endpoints = endpoints
	r := newReceiver(t, 0, true)
	bg := context.Background()
	// cutShort runs send until the receiver has its request, then ends its context.
	cutShort := func(what string, send func(context.Context)) {
		t.Helper()
		before := r.total()
		ctx, cancel := context.WithCancel(bg)
		done := make(chan struct{})
		go func() { defer close(done); send(ctx) }()
		wait.Until(t, what+" to reach the receiver", 10*time.Second, func() bool { return r.total() > before })
		cancel()
		<-done
	}

	w.paidReceipt(t, "rc-shutdown", r.srv.URL, "plk_secret")
	claimed, err := w.disp.Outbox.Claim(bg, []string{readmodels.NotePending}, false, 1, leaseFor)
	if err != nil || len(claimed) != 1 {
		t.Fatalf("claim: %d, %v", len(claimed), err)
	}
	cutShort("the notification", func(ctx context.Context) { w.disp.Deliver(ctx, claimed[0]) })
	var state string
	var attempts, logged int
	var leased bool
	if err := w.pool.QueryRow(bg, `SELECT state, attempts, lease_token IS NOT NULL, (SELECT count(*) FROM webhook_deliveries)
		FROM webhook_notifications WHERE receipt_id = 'rc-shutdown'`).Scan(&state, &attempts, &leased, &logged); err != nil {
		t.Fatal(err)
	}
	if state != readmodels.NotePending || attempts != 0 || leased || logged != 0 {
		t.Errorf("notification after shutdown: %s, %d attempts, leased %v, %d attempts logged; want pending, 0, false, 0", state, attempts, leased, logged)
	}

	secret, _ := NewSecret()
	ep, err := endpoints.Create(bg, "0xmerchant", r.srv.URL, []string{TypeTest}, secret, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := endpoints.Record(bg, readmodels.NewEvent{Key: "k", Merchant: "0xmerchant", Type: TypeTest, At: time.Now(), Data: map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	cutShort("the endpoint message", func(ctx context.Context) { _, _ = w.disp.SendEndpointsDue(ctx) })
	if err := w.pool.QueryRow(bg, `SELECT state, attempts, lease_until IS NOT NULL, (SELECT count(*) FROM webhook_endpoint_attempts)
		FROM webhook_endpoint_messages WHERE endpoint_id = $1`, ep.ID).Scan(&state, &attempts, &leased, &logged); err != nil {
		t.Fatal(err)
	}
	if state != readmodels.NotePending || attempts != 0 || leased || logged != 0 {
		t.Errorf("endpoint message after shutdown: %s, %d attempts, leased %v, %d attempts logged; want pending, 0, false, 0", state, attempts, leased, logged)
	}
}
