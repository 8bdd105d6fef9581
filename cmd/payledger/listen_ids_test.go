package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/payledger/payledger/internal/wait"
)

// TestListenResumesAfterAnIdItCanUse: an event whose id: is not an event id (text, a control
// character) does not become the next connection's Last-Event-ID; listen resumes after the last
// id it can use. Such an id was sent back: the service refuses it (400) and the HTTP client
// cannot send a control character, so listen reconnected each second for ever, forwarding
// nothing more. The stream is a stand-in for GET /api/webhooks/stream that ends each connection
// after its events.
func TestListenResumesAfterAnIdItCanUse(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var lastIDs []string
	stream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		last := r.Header.Get("Last-Event-ID")
		mu.Lock()
		lastIDs = append(lastIDs, last)
		mu.Unlock()
		after := int64(0)
		if last != "" {
			n, err := strconv.ParseInt(last, 10, 64)
			if err != nil {
				http.Error(w, `{"error":"invalid_input"}`, http.StatusBadRequest)
				return
			}
			after = n
		}
		w.Header().Set("Content-Type", "text/event-stream")
		event := func(id string, n int) {
			fmt.Fprintf(w, "id: %s\nevent: webhook.test\ndata: {\"webhookId\":\"msg_%d\",\"type\":\"webhook.test\",\"body\":{\"n\":%d}}\n\n", id, n, n)
		}
		switch after {
		case 0:
			event("1", 1)
			event("junk", 2)
			event("3\x01", 3)
		case 1:
			event("4", 4)
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
	wait.Until(t, "the event after the reconnection forwarded", 10*time.Second, func() bool {
		_, ok := got.Load("msg_4")
		return ok
	})
	mu.Lock()
	defer mu.Unlock()
	for _, id := range lastIDs[1:] {
		if id != "1" && id != "4" {
			t.Fatalf("Last-Event-ID of the reconnections: %q, want \"1\" (then \"4\")\n%s", lastIDs, out.String())
		}
	}
	if strings.Contains(out.String(), "stream answered 400") {
		t.Fatalf("a reconnection was refused:\n%s", out.String())
	}
}
