package transport

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// TestReceiptRedeliveryOutlivesTheRequest: a manual redelivery of a receipt webhook whose caller
// leaves while the receiver is still answering is not cut: the receiver's 200 is logged and the
// notification, marked after two failed attempts, is closed as delivered. On the request's
// context the attempt ended with the caller and its recording failed on the ended context: no
// trace of the 200, the notification still marked.
func TestReceiptRedeliveryOutlivesTheRequest(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(true)
	var (
		mu        sync.Mutex
		calls     int
		arrived   = make(chan struct{})
		cancelled = make(chan struct{})
	)
	r := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		mu.Lock()
		calls++
		n := calls
		mu.Unlock()
		if n <= 2 { // the first attempt and the automatic retry fail
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		close(arrived)
		<-cancelled // the caller has gone: answer only now
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(r.Close)
	t.Cleanup(func() {
		select {
		case <-cancelled:
		default:
			close(cancelled)
		}
	})
	id := e.hookedReceipt(m, r.URL)
	e.pay(id, "evt_1")
	state := func() string {
		var s string
		if err := e.pool.QueryRow(context.Background(), `SELECT state FROM webhook_notifications WHERE receipt_id = $1`, id).Scan(&s); err != nil {
			return err.Error()
		}
		return s
	}
	waitUntil(t, "the notification marked", 10*time.Second, func() bool { return state() == "marked" })
	var did string
	if err := e.pool.QueryRow(context.Background(), `SELECT id::text FROM webhook_deliveries WHERE receipt_id = $1 LIMIT 1`, id).Scan(&did); err != nil {
		t.Fatal(err)
	}

	e.redeliverAndLeave(m, "/api/webhooks/deliveries/"+did+"/redeliver", arrived, cancelled)

	var kind string
	var code *int
	err := e.pool.QueryRow(context.Background(), `SELECT kind, http_status FROM webhook_deliveries WHERE receipt_id = $1
		ORDER BY attempted_at DESC LIMIT 1`, id).Scan(&kind, &code)
	if err != nil || kind != "redeliver" || code == nil || *code != 200 {
		t.Fatalf("the last attempt logged: %s %v (%v), want the redelivery's 200", kind, code, err)
	}
	if s := state(); s != "delivered" {
		t.Fatalf("the notification after the redelivery's 200: %s", s)
	}
}

// redeliverAndLeave posts a manual redelivery (path) as m and leaves once it has reached the
// receiver (arrived): the request's context ends, then cancelled lets the receiver answer.
func (e *env) redeliverAndLeave(m merchant, path string, arrived <-chan struct{}, cancelled chan struct{}) {
	e.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	hr := httptest.NewRequest(http.MethodPost, path, nil).WithContext(ctx)
	hr.Header.Set(CSRFHeader, m.csrf)
	for _, c := range m.cookies {
		hr.AddCookie(c)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.srv.ServeHTTP(httptest.NewRecorder(), hr)
	}()
	select {
	case <-arrived:
	case <-done:
		e.t.Fatal("the redelivery ended without reaching the receiver")
	}
	cancel()
	close(cancelled)
	<-done
}
