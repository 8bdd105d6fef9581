package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/payledger/payledger/internal/wait"
)

// TestListenKeepsEventsWhileTheReceiverIsDown: events streamed while the local receiver does not
// answer are forwarded once it does, each once; listen used to move past them and lose them.
// The stream is a stand-in for GET /api/webhooks/stream holding three events.
func TestListenKeepsEventsWhileTheReceiverIsDown(t *testing.T) {
	t.Parallel()
	const events = 3
	stream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		after := int64(0) // without Last-Event-ID: the events recorded from now on, all three here
		if last := r.Header.Get("Last-Event-ID"); last != "" {
			after, _ = strconv.ParseInt(last, 10, 64)
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for seq := after + 1; seq <= events; seq++ {
			fmt.Fprintf(w, "id: %d\nevent: webhook.test\ndata: {\"webhookId\":\"msg_%d\",\"type\":\"webhook.test\",\"body\":{\"n\":%d}}\n\n", seq, seq, seq)
		}
		w.(http.Flusher).Flush()
		<-r.Context().Done() // the stream stays open
	}))
	defer stream.Close()

	var up atomic.Bool
	var mu sync.Mutex
	got := map[string]int{}
	local := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !up.Load() { // down: the connection closes without an answer
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
			return
		}
		mu.Lock()
		got[r.Header.Get("webhook-id")]++
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	defer local.Close()

	out, stop := runListener(t, stream.URL, local.URL, nil)
	defer stop()

	wait.Until(t, "a forward to the receiver that is down", 10*time.Second, func() bool { return strings.Contains(out.String(), "-> error") })
	up.Store(true)
	wait.Until(t, "the three events forwarded once the receiver answers", 10*time.Second, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(got) == events
	})
	mu.Lock()
	defer mu.Unlock()
	for id, n := range got {
		if n != 1 {
			t.Errorf("%s forwarded %d times", id, n)
		}
	}
}
