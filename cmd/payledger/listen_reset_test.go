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

// TestListenStartsAgainWhenTheLogNoLongerHasItsLastEvent (stop 66): after the service's event log
// was reset (a development database made anew) or restored, listen resumed after an id the new log
// never sent. The service refuses such an id (400); listen answered each refusal by reconnecting
// with the same id, each second for ever, forwarding nothing. It now says so and starts again with
// the new log's events. The stream is a stand-in for GET /api/webhooks/stream: its first
// connection sends event 500 (the old log), later ones refuse 500 and send event 2 without one.
func TestListenStartsAgainWhenTheLogNoLongerHasItsLastEvent(t *testing.T) {
	t.Parallel()
	var (
		mu    sync.Mutex
		conns int
	)
	stream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		conns++
		first := conns == 1
		mu.Unlock()
		if r.Header.Get("Last-Event-ID") != "" {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"error":"invalid_input","message":"Last-Event-ID is past the newest event"}`)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		id := map[bool]int{true: 500, false: 2}[first]
		fmt.Fprintf(w, "id: %d\nevent: webhook.test\ndata: {\"webhookId\":\"msg_%d\",\"type\":\"webhook.test\",\"body\":{}}\n\n", id, id)
	}))
	defer stream.Close()
	var got sync.Map
	local := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.Store(r.Header.Get("webhook-id"), true)
	}))
	defer local.Close()
	out, stop := runListener(t, stream.URL, local.URL, func(l *listener) { l.post = forwardClient() })
	defer stop()
	wait.Until(t, "the new log's event forwarded", 10*time.Second, func() bool {
		_, ok := got.Load("msg_2")
		return ok
	})
	if !strings.Contains(out.String(), `does not have the last event received: "500"`) {
		t.Fatalf("listen did not say it started again:\n%s", out.String())
	}
}
