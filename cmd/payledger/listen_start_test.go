package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/payledger/payledger/internal/wait"
)

// TestListenResumesWhereAQuietStreamStarted: a stream that ends before sending any event (its
// 10-minute lifetime, a dropped connection) is resumed from the position it said it started at
// (an id: with no data), so the event recorded while listen reconnected is forwarded. Listen
// reconnected without Last-Event-ID, the stream started again from the events recorded after
// that, and the event in between was never forwarded. The stream is a stand-in for
// GET /api/webhooks/stream: its first connection says it starts after 41 and ends at once; event
// 42 is recorded meanwhile.
func TestListenResumesWhereAQuietStreamStarted(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var lastIDs []string
	stream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		last := r.Header.Get("Last-Event-ID")
		mu.Lock()
		lastIDs = append(lastIDs, last)
		first := len(lastIDs) == 1
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		switch {
		case first:
			fmt.Fprint(w, "retry: 1000\nid: 41\n\n") // its start, then the stream ends
		case last == "41":
			fmt.Fprint(w, "retry: 1000\nid: 41\n\n")
			fmt.Fprint(w, "id: 42\nevent: receipt.paid\ndata: {\"webhookId\":\"msg_42\",\"type\":\"receipt.paid\",\"body\":{\"n\":42}}\n\n")
		default: // without Last-Event-ID: from now on, past event 42
			fmt.Fprint(w, "retry: 1000\nid: 42\n\n")
		}
	}))
	defer stream.Close()
	var got sync.Map
	local := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.Store(r.Header.Get("webhook-id"), true)
		w.WriteHeader(http.StatusNoContent)
	}))
	defer local.Close()
	out, stop := runListener(t, stream.URL, local.URL, nil)
	defer stop()
	wait.Until(t, "a reconnection", 10*time.Second, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(lastIDs) >= 2
	})
	mu.Lock()
	second := lastIDs[1]
	mu.Unlock()
	if second != "41" {
		t.Fatalf("the reconnection's Last-Event-ID is %q, want \"41\" (where the first stream started)\n%s", second, out.String())
	}
	wait.Until(t, "event 42 forwarded", 10*time.Second, func() bool {
		_, ok := got.Load("msg_42")
		return ok
	})
}
