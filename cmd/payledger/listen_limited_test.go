package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/payledger/payledger/internal/wait"
)

// TestListenWaitsWhatA429Asks: a stream refused with 429 (too many streams open for the merchant,
// the key's request limit) is tried again when its Retry-After says, and listen prints the
// service's reason. It reconnected each second (here each 10 ms) whatever the answer said,
// printing "stream answered 429" and nothing of why.
func TestListenWaitsWhatA429Asks(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var at []time.Time
	stream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		at = append(at, time.Now())
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Retry-After", "1")
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = w.Write([]byte(`{"error":"rate_limited","message":"Too many open event streams for this merchant, or on this instance","resetAt":1}`))
	}))
	defer stream.Close()
	out := &syncBuffer{}
	l := &listener{base: stream.URL, key: "plk_test", forward: "http://127.0.0.1:1/", secret: "whsec_dGVzdA==", out: out,
		retry: 10 * time.Millisecond, stream: &http.Client{}, post: &http.Client{Timeout: time.Second}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- l.run(ctx) }()
	defer func() { cancel(); <-done }()
	wait.Until(t, "a second attempt", 10*time.Second, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(at) >= 2
	})
	mu.Lock()
	gap := at[1].Sub(at[0])
	mu.Unlock()
	if gap < 900*time.Millisecond {
		t.Fatalf("tried again after %s, want the 1 s Retry-After\n%s", gap, out.String())
	}
	if !strings.Contains(out.String(), "Too many open event streams for this merchant") {
		t.Fatalf("the service's reason is not printed:\n%s", out.String())
	}
}
