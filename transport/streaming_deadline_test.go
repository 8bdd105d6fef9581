package transport

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// deadlineWriter is a ResponseWriter that records the deadlines http.ResponseController sets.
type deadlineWriter struct {
	*httptest.ResponseRecorder
	read, write []time.Time
}

func (w *deadlineWriter) SetReadDeadline(t time.Time) error { w.read = append(w.read, t); return nil }
func (w *deadlineWriter) SetWriteDeadline(t time.Time) error {
	w.write = append(w.write, t)
	return nil
}

// TestEventStreamsKeepAWriteDeadline (stop 65): the event streams (/api/webhooks/stream, the
// dashboard's live list, the payment page's) lifted the server's write deadline altogether, so a
// stream writing to a client that stopped reading blocked in its write for ever, past its 10
// minute lifetime, holding its stream slot and goroutines. The read deadline is still lifted; the
// write deadline is the end of the lifetime plus streamWriteGrace.
func TestEventStreamsKeepAWriteDeadline(t *testing.T) {
	t.Parallel()
	w := &deadlineWriter{ResponseRecorder: httptest.NewRecorder()}
	before := time.Now()
	outliveTimeouts(w)
	after := time.Now()
	if len(w.read) != 1 || !w.read[0].IsZero() {
		t.Fatalf("read deadlines %v, want the read deadline lifted (zero)", w.read)
	}
	if len(w.write) != 1 || w.write[0].Before(before.Add(eventsLifetime)) || w.write[0].After(after.Add(eventsLifetime+streamWriteGrace)) {
		t.Fatalf("write deadlines %v, want one between %v and %v", w.write, before.Add(eventsLifetime), after.Add(eventsLifetime+streamWriteGrace))
	}
	var _ http.ResponseWriter = w
}
