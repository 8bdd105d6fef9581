package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/payledger/payledger/internal/wait"
)

// TestListenResumesAStreamThatFallsSilent: a stream that sends nothing more, not even the
// service's keep-alive comment (every 15 s), is dropped and resumed after its last event. listen
// read such a stream for ever (a connection a NAT or proxy dropped without a word, a laptop back
// from sleep, a stuck proxy): it forwarded nothing more and said nothing. The stream is a
// stand-in for GET /api/webhooks/stream whose first connection sends one event and then
// nothing.
func TestListenResumesAStreamThatFallsSilent(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var lastIDs []string
	stream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		last := r.Header.Get("Last-Event-ID")
		mu.Lock()
		lastIDs = append(lastIDs, last)
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		n := 1
		if last == "1" {
			n = 2
		}
		fmt.Fprintf(w, "retry: 1000\n\nid: %d\nevent: webhook.test\ndata: {\"webhookId\":\"msg_%d\",\"type\":\"webhook.test\",\"body\":{\"n\":%d}}\n\n", n, n, n)
		w.(http.Flusher).Flush()
		<-r.Context().Done() // silent from here on, the connection open
	}))
	defer stream.Close()
	var got sync.Map
	local := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.Store(r.Header.Get("webhook-id"), true)
		w.WriteHeader(http.StatusNoContent)
	}))
	defer local.Close()
	out, stop := runListener(t, stream.URL, local.URL, func(l *listener) { l.quiet = 100 * time.Millisecond })
	defer stop()
	wait.Until(t, "the event of the resumed stream forwarded", 10*time.Second, func() bool {
		_, ok := got.Load("msg_2")
		return ok
	})
	// A slow machine may drop a connection before its event too: every resumption is after the
	// last event forwarded, never before it.
	mu.Lock()
	defer mu.Unlock()
	for _, id := range lastIDs {
		if id != "" && id != "1" && id != "2" {
			t.Fatalf("Last-Event-ID of the connections: %q\n%s", lastIDs, out.String())
		}
	}
	if !strings.Contains(out.String(), "stream dropped (the stream sent nothing") {
		t.Fatalf("listen did not say why it resumed:\n%s", out.String())
	}
}
