package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestListenEndsOnAStreamThatIsNotThere: a --base-url at which the service has no event stream
// (here the real service's address with a path, so that the stream's path is an unknown route:
// 404) ends listen with exit 1 and a sentence naming the address, at the first answer. It was
// retried each second for ever ("stream dropped (stream answered 404)"), listen never exiting.
func TestListenEndsOnAStreamThatIsNotThere(t *testing.T) {
	t.Parallel()
	base, _ := startServe(t, map[string]string{"DEVCHAIN": "off"})
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	defer receiver.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var out, errOut bytes.Buffer
	started := time.Now()
	code := run(ctx, []string{"listen", "--forward-to", receiver.URL, "--api-key", "plk_any", "--base-url", base + "/api"},
		env(map[string]string{"DEV_DATA_DIR": t.TempDir()}), &out, &errOut)
	if code != 1 || ctx.Err() != nil {
		t.Fatalf("exit %d after %s (want 1 at once)\nstdout:\n%s\nstderr:\n%s", code, time.Since(started).Round(time.Millisecond), out.String(), errOut.String())
	}
	for _, want := range []string{base + "/api/api/webhooks/stream answered 404", "is --base-url the service's address, without a path?"} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut.String())
		}
	}
	if strings.Contains(out.String(), "stream dropped") {
		t.Errorf("listen retried the 404:\n%s", out.String())
	}
}
