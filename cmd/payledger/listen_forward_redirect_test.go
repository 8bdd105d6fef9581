package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/payledger/payledger/internal/wait"
)

// TestListenShowsTheReceiversRedirect: a local receiver that redirects the forward (a trailing
// slash, a moved route) is shown its 3xx, as the service's dispatcher, which follows no redirect,
// would count it. listen followed it: a 301 or 302 turned the POST into a GET without the body,
// the GET's 200 was printed as the event's answer and the event passed as handled, though the
// handler never received it.
func TestListenShowsTheReceiversRedirect(t *testing.T) {
	t.Parallel()
	stream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		if r.Header.Get("Last-Event-ID") == "" {
			fmt.Fprint(w, "id: 7\nevent: webhook.test\ndata: {\"webhookId\":\"msg_7\",\"type\":\"webhook.test\",\"body\":{\"n\":7}}\n\n")
		}
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	defer stream.Close()
	var followed atomic.Bool
	local := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/hook" {
			http.Redirect(w, r, "/hook/", http.StatusMovedPermanently)
			return
		}
		followed.Store(true)
		w.WriteHeader(http.StatusOK)
	}))
	defer local.Close()
	vars := env(map[string]string{"DEV_DATA_DIR": t.TempDir(), "DATABASE_URL": "postgres://nobody@127.0.0.1:1/none"})
	ctx, cancel := context.WithCancel(context.Background())
	var out syncBuffer
	exit := make(chan int, 1)
	go func() {
		exit <- run(ctx, []string{"listen", "--api-key", "plk_test", "--forward-to", local.URL + "/hook", "--base-url", stream.URL}, vars, &out, &out)
	}()
	defer func() { cancel(); <-exit }()
	wait.Until(t, "the event's answer printed", 10*time.Second, func() bool { return strings.Contains(out.String(), "msg_7  -> ") })
	if followed.Load() || !strings.Contains(out.String(), "msg_7  -> 301") {
		t.Fatalf("followed the redirect: %v; printed:\n%s", followed.Load(), out.String())
	}
}
