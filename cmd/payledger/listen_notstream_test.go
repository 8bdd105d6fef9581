package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/payledger/payledger/internal/wait"
)

// TestListenReadsOnlyAnEventStream: a --base-url that answers 200 with a web page (an app that
// serves its index for every path) is not read as the stream: nothing of it is forwarded, and
// listen says the address is no event stream. Its data: lines were forwarded signed with the
// secret, and its end taken for a dropped stream each second, with no word of why.
func TestListenReadsOnlyAnEventStream(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte("<pre>\nid: 7\ndata: {\"webhookId\":\"msg_page\",\"type\":\"receipt.paid\",\"body\":{\"paid\":true}}\n\n</pre>\n"))
	}))
	defer page.Close()
	var forwarded atomic.Int32
	local := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		forwarded.Add(1)
		w.WriteHeader(http.StatusNoContent)
	}))
	defer local.Close()
	out, stop := runListener(t, page.URL, local.URL, nil)
	wait.Until(t, "two attempts", 10*time.Second, func() bool { return hits.Load() >= 2 })
	stop()
	if n := forwarded.Load(); n != 0 {
		t.Fatalf("%d posts forwarded from a web page\n%s", n, out.String())
	}
	if !strings.Contains(out.String(), "not an event stream") {
		t.Fatalf("listen does not say the address is no event stream:\n%s", out.String())
	}
}
