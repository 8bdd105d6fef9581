package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestListenSendsTheKeyToNoOtherHost: a --base-url that redirects to another host (a site's
// bare domain sending to its www or docs host, a proxy) made listen follow the redirect with the
// API key in Ocp-Apim-Subscription-Key: net/http keeps a header of its own naming on a redirect
// to any host (it drops only Authorization and cookies). listen now refuses the redirect, says
// where it led, and exits: a wrong --base-url is no reason to retry each second.
func TestListenSendsTheKeyToNoOtherHost(t *testing.T) {
	t.Parallel()
	var leaked atomic.Bool
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Ocp-Apim-Subscription-Key") != "" {
			leaked.Store(true)
		}
		http.Error(w, `{"error":"unauthorized"}`, http.StatusUnauthorized) // ends listen either way
	}))
	defer other.Close()
	base := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusMovedPermanently)
	}))
	defer base.Close()
	vars := env(map[string]string{"DEV_DATA_DIR": t.TempDir(), "DATABASE_URL": "postgres://nobody@127.0.0.1:1/none"})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out, errOut bytes.Buffer
	code := run(ctx, []string{"listen", "--api-key", "plk_secret_key", "--forward-to", "http://127.0.0.1:1/hook", "--base-url", base.URL}, vars, &out, &errOut)
	if leaked.Load() {
		t.Fatal("the API key was sent to the host the redirect named")
	}
	if code == 0 || ctx.Err() != nil || !strings.Contains(errOut.String(), "redirected") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out.String(), errOut.String())
	}
}
