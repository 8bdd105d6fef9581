package webhooks

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/payledger/payledger/internal/wait"
)

// TestIdleConnectionsToReceiversAreBounded: the dispatcher's client kept the keep-alive
// connection of every receiver it had ever sent to, for ever (no bound on idle connections in
// all, no idle timeout). Anyone who may name a webhook URL (a receipt's webhook_url, an endpoint)
// could name a new host each time, keep the connections open on their side and make the service
// hold one more file descriptor and its buffers per host until it ran out. The idle pool is
// bounded: the connections beyond it are closed as soon as they are idle.
func TestIdleConnectionsToReceiversAreBounded(t *testing.T) {
	t.Parallel()
	var open atomic.Int32 // the receivers' connections not closed
	urls := make([]string, maxIdleConns+16)
	for i := range urls {
		srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusNoContent) // keep-alive: the receiver never closes first
		}))
		srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
			switch s {
			case http.StateNew:
				open.Add(1)
			case http.StateClosed, http.StateHijacked:
				open.Add(-1)
			}
		}
		srv.Start()
		t.Cleanup(srv.Close)
		urls[i] = srv.URL // a host of its own: 127.0.0.1 and its port
	}
	w := newWorld(t, nil)
	ctx := context.Background()
	for _, u := range urls {
		if _, err := w.disp.post(ctx, u, []byte(`{}`), nil, func(http.Header) {}); err != nil {
			t.Fatalf("post to %s: %v", u, err)
		}
	}
	wait.Until(t, "the idle connections beyond the bound closed", 10*time.Second, func() bool {
		return open.Load() <= maxIdleConns
	})
}
