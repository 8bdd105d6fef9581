package transport

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestHealthzAnswersHEAD (stop 68): HEAD /healthz was 405, so an uptime monitor that checks with
// HEAD (some do by default) reported the service down while it was up. It answers as GET does,
// without a body, open and in gateway mode too (the probes are reachable on the origin); a HEAD on
// a stream stays 405 (it would hold a stream slot).
func TestHealthzAnswersHEAD(t *testing.T) {
	t.Parallel()
	for _, gateway := range []bool{false, true} {
		e := newEnv(t, func(d *testDeps) { d.Config.GatewayMode = gateway })
		srv := httptest.NewServer(e.srv)
		t.Cleanup(srv.Close)
		call := func(method, path string) (*http.Response, string) {
			t.Helper()
			hr, err := http.NewRequest(method, srv.URL+path, nil)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := srv.Client().Do(hr)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			return resp, string(body)
		}
		if resp, body := call(http.MethodHead, "/healthz"); resp.StatusCode != http.StatusOK || body != "" ||
			resp.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("gateway %v: HEAD /healthz: %d %q %q, want 200, no body, application/json", gateway, resp.StatusCode,
				resp.Header.Get("Content-Type"), body)
		}
		if resp, body := call(http.MethodGet, "/healthz"); resp.StatusCode != http.StatusOK || !strings.HasPrefix(body, `{"status":"ok"`) {
			t.Fatalf("gateway %v: GET /healthz: %d %q", gateway, resp.StatusCode, body)
		}
		if !gateway {
			if resp, _ := call(http.MethodHead, "/api/webhooks/stream"); resp.StatusCode != http.StatusMethodNotAllowed {
				t.Fatalf("HEAD on the stream: %d, want 405", resp.StatusCode)
			}
		}
	}
}
