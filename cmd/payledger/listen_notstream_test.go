package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/webhooks"
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
	secret, err := webhooks.NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	out := &syncBuffer{}
	l := &listener{base: page.URL, key: "plk_test", forward: local.URL, secret: secret, out: out,
		retry: 10 * time.Millisecond, stream: &http.Client{}, post: &http.Client{Timeout: 5 * time.Second}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- l.run(ctx) }()
	wait.Until(t, "two attempts", 10*time.Second, func() bool { return hits.Load() >= 2 })
	cancel()
	<-done
	if n := forwarded.Load(); n != 0 {
		t.Fatalf("%d posts forwarded from a web page\n%s", n, out.String())
	}
	if !strings.Contains(out.String(), "not an event stream") {
		t.Fatalf("listen does not say the address is no event stream:\n%s", out.String())
	}
}
