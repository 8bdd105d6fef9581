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

// TestAStreamRefusesAnIdPastItsLog (stop 66): a client resuming with an id the log never sent
// (it read a log since reset or restored from a backup, whose new events take the ids again) was
// resumed after it: none of the new events came until the log passed the id, and nothing told the
// client. Such an id is refused now (400 invalid_input), as any id the stream never sent; the
// newest id, and an id of another merchant's event (a position in the same log), still resume.
func TestAStreamRefusesAnIdPastItsLog(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	const wallet, other = "0x00000000000000000000000000000000000000b3", "0x00000000000000000000000000000000000000b4"
	ctx := context.Background()
	for i, m := range []string{wallet, other} {
		if err := readmodels.RecordEvents(ctx, e.pool, readmodels.NewEvent{Key: fmt.Sprintf("past-%d", i), Merchant: m,
			Type: readmodels.EventWebhookTest, At: time.Now(), Data: map[string]any{}}); err != nil {
			t.Fatal(err)
		}
	}
	var end int64
	if err := e.pool.QueryRow(ctx, `SELECT max(seq) FROM webhook_events`).Scan(&end); err != nil {
		t.Fatal(err)
	}
	start := func(id int64) error {
		hr := httptest.NewRequest(http.MethodGet, "/api/webhooks/stream", nil)
		hr.Header.Set("Last-Event-ID", fmt.Sprint(id))
		_, err := e.srv.streamStart(e.srv.Echo.NewContext(hr, httptest.NewRecorder()), wallet)
		return err
	}
	for _, id := range []int64{end, end - 1} {
		if err := start(id); err != nil {
			t.Fatalf("Last-Event-ID %d (the log ends at %d) refused: %v", id, end, err)
		}
	}
	if err := start(end + 500); err == nil {
		t.Fatalf("Last-Event-ID %d, past the log's end %d, was resumed after", end+500, end)
	}
	key := e.key(wallet, "receipts:read")
	rec := e.do(req{method: http.MethodGet, path: "/api/webhooks/stream",
		header: map[string]string{"Ocp-Apim-Subscription-Key": key, "Last-Event-ID": fmt.Sprint(end + 500)}})
	if body := decode(t, rec); rec.Code != http.StatusBadRequest || body["error"] != "invalid_input" {
		t.Fatalf("a stream resuming past the log's end: %d %v, want 400 invalid_input", rec.Code, body)
	}
}
