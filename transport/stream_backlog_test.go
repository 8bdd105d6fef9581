package transport

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/readmodels"
)

// backlogWriter is an event stream's connection: it counts the events written to it and, once
// fail says so, refuses every write (a client gone, or one that stopped reading until the write
// deadline). It is read from the test's goroutine while the handler writes.
type backlogWriter struct {
	mu      sync.Mutex
	header  http.Header
	events  int // "id:" lines written, refused or not
	refused int // writes refused
	fail    func(events int) bool
	onEvent func(events int)
}

var errGone = errors.New("client gone")

func (w *backlogWriter) Header() http.Header                { return w.header }
func (w *backlogWriter) WriteHeader(int)                    {}
func (w *backlogWriter) SetReadDeadline(time.Time) error    { return nil }
func (w *backlogWriter) SetWriteDeadline(t time.Time) error { return nil }
func (w *backlogWriter) FlushError() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fail(w.events) {
		return errGone
	}
	return nil
}

func (w *backlogWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	if bytes.HasPrefix(b, []byte("id: ")) {
		w.events++
	}
	n, failed := w.events, w.fail(w.events)
	if failed {
		w.refused++
	}
	w.mu.Unlock()
	if w.onEvent != nil && bytes.HasPrefix(b, []byte("id: ")) {
		w.onEvent(n)
	}
	if failed {
		return 0, errGone
	}
	return len(b), nil
}

func (w *backlogWriter) counts() (events, refused int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.events, w.refused
}

// streamBacklog records n events for wallet and opens its event stream from the start of its
// log on w; it returns whether the handler has returned.
func streamBacklog(t *testing.T, e *env, wallet string, n int, w *backlogWriter) func() bool {
	t.Helper()
	events := make([]readmodels.NewEvent, n)
	for i := range events {
		events[i] = readmodels.NewEvent{Key: fmt.Sprintf("backlog-%d", i), Merchant: wallet, Type: readmodels.EventWebhookTest,
			At: time.Now(), Data: map[string]any{"n": i}}
	}
	if err := readmodels.RecordEvents(context.Background(), e.pool, events...); err != nil {
		t.Fatal(err)
	}
	secret := e.key(wallet, "receipts:read")
	key, err := e.keys.Authenticate(context.Background(), secret)
	if err != nil {
		t.Fatal(err)
	}
	reqCtx, cancel := context.WithCancel(context.Background())
	hr := httptest.NewRequest(http.MethodGet, "/api/webhooks/stream", nil).WithContext(
		context.WithValue(reqCtx, principalKey{}, Principal{Wallet: wallet, Scopes: key.Scopes, KeyID: key.ID, Secret: secret}))
	hr.Header.Set("Last-Event-ID", "0")
	c := e.srv.Echo.NewContext(hr, w)
	done := make(chan struct{})
	go func() { defer close(done); _ = e.srv.eventStream(c) }()
	t.Cleanup(func() { cancel(); <-done })
	return func() bool {
		select {
		case <-done:
			return true
		default:
			return false
		}
	}
}

// TestAnEventStreamEndsAtItsFirstFailedWrite (stop 66): a stream resuming far back in its log
// (Last-Event-ID) wrote its whole backlog, batch after batch, ignoring every write error, and then
// went on polling a connection that was gone until its lifetime ended. It now returns at the first
// failed write, and its client resumes from the last id it received.
func TestAnEventStreamEndsAtItsFirstFailedWrite(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	const wallet = "0x00000000000000000000000000000000000000b1"
	w := &backlogWriter{header: http.Header{}, fail: func(events int) bool { return events > 5 }}
	ended := streamBacklog(t, e, wallet, 10*streamBatch, w)
	wait.Until(t, "the stream to end after its first failed write", 5*time.Second, ended)
	if events, refused := w.counts(); refused != 1 || events > 6 {
		t.Fatalf("the stream wrote %d events, %d of them refused, into a gone connection; want it to stop at the first refusal", events, refused)
	}
}

// TestAnEventStreamReadingItsBacklogStopsAtShutdown (stop 66): between two full batches the
// stream looked at nothing (its end, its credential, the server's shutdown) and read on, so a
// backlog held a shutting-down server's drain, or a stream past its lifetime, until it was all
// written. It now stops at the next full batch.
func TestAnEventStreamReadingItsBacklogStopsAtShutdown(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	const wallet = "0x00000000000000000000000000000000000000b2"
	w := &backlogWriter{header: http.Header{}, fail: func(int) bool { return false }}
	w.onEvent = func(n int) {
		if n == 1 {
			e.srv.receiptWatch.stop() // the server shuts down as the backlog starts
		}
	}
	ended := streamBacklog(t, e, wallet, 20*streamBatch, w)
	wait.Until(t, "the stream to end at the shutdown", 5*time.Second, ended)
	if events, _ := w.counts(); events > 2*streamBatch {
		t.Fatalf("the stream wrote %d events of its backlog after the shutdown began, want at most its batch (%d)", events, streamBatch)
	}
}
