package webhooks

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestReceiversHeadersAreBounded: the client read up to net/http's default of 10 MB of a
// receiver's response headers, for each attempt, of which hundreds run at once (up to 896 on
// the wire, about 200 of one merchant). A hostile receiver answering every attempt with 10 MB of
// headers made the service hold gigabytes. The service reads at most maxResponseHeaders of them
// (it needs only the status): an answer with more is a failed attempt.
func TestReceiversHeadersAreBounded(t *testing.T) {
	t.Parallel()
	junk := strings.Repeat("a", 8<<10)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/small" {
			w.Header().Set("X-Small", junk) // one header of 8 KiB: within the bound
		} else {
			for i := range 2 * maxResponseHeaders / len(junk) {
				w.Header().Set(fmt.Sprintf("X-Junk-%d", i), junk)
			}
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(srv.Close)
	w := newWorld(t, nil)
	ctx := context.Background()
	if _, err := w.disp.post(ctx, srv.URL+"/small", []byte(`{}`), nil, func(http.Header) {}); err != nil {
		t.Fatalf("an answer within the bound: %v", err)
	}
	code, err := w.disp.post(ctx, srv.URL+"/large", []byte(`{}`), nil, func(http.Header) {})
	if err == nil {
		t.Fatalf("an answer with %d bytes of headers was read (status %v), want a failed attempt", 2*maxResponseHeaders, *code)
	}
	if got := deliveryError(err); got != ErrorConnection {
		t.Fatalf("category %q, want %q", got, ErrorConnection)
	}
}
