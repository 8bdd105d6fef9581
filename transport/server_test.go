package transport

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"
	"github.com/rs/zerolog"
)

func newTestServer(t *testing.T, db Pinger, logs io.Writer) *Server {
	t.Helper()
	e := newEnv(t, func(d *testDeps) {
		d.DB = db
		d.Log = zerolog.New(logs)
	})
	e.srv.Echo.POST("/test/json", func(c echo.Context) error {
		var body struct {
			Name string `json:"name"`
			Qty  int    `json:"qty"`
		}
		if err := DecodeJSON(c, &body); err != nil {
			return err
		}
		return c.JSON(http.StatusOK, body)
	})
	e.srv.Echo.GET("/test/panic", func(c echo.Context) error { panic("secret internal detail") })
	e.srv.Echo.GET("/test/fail", func(c echo.Context) error { return errors.New("db exploded: password=hunter2") })
	return e.srv
}

func do(s *Server, method, path, body string, hdr map[string]string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	return rec
}

func envelope(t *testing.T, rec *httptest.ResponseRecorder) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil {
		t.Fatalf("body %q is not JSON: %v", rec.Body.String(), err)
	}
	return m
}

func TestHealthz(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		db   Pinger
		want string
	}{
		{"database answers", pinger{}, "ok"},
		{"database down", pinger{errors.New("connection refused")}, "degraded"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := do(newTestServer(t, c.db, io.Discard), http.MethodGet, "/healthz", "", nil)
			if rec.Code != http.StatusOK || envelope(t, rec)["status"] != c.want {
				t.Fatalf("got %d %s, want 200 status %s", rec.Code, rec.Body, c.want)
			}
		})
	}
}

func TestErrorEnvelopes(t *testing.T) {
	t.Parallel()
	big := `{"name":"` + strings.Repeat("x", MaxBodyBytes) + `"}`
	cases := []struct {
		name, method, path, body string
		status                   int
		code                     string
	}{
		{"unknown route", http.MethodGet, "/nope", "", 404, "not_found"},
		{"wrong method", http.MethodDelete, "/healthz", "", 405, "method_not_allowed"},
		{"malformed json", http.MethodPost, "/test/json", `{"name":`, 400, "invalid_input"},
		{"wrong type", http.MethodPost, "/test/json", `{"qty":"two"}`, 400, "invalid_input"},
		{"unknown field", http.MethodPost, "/test/json", `{"nam":"x"}`, 400, "invalid_input"},
		{"trailing data", http.MethodPost, "/test/json", `{"name":"x"} {}`, 400, "invalid_input"},
		{"empty body", http.MethodPost, "/test/json", ``, 400, "invalid_input"},
		{"body over 1 MiB", http.MethodPost, "/test/json", big, 413, "payload_too_large"},
		{"panic", http.MethodGet, "/test/panic", "", 500, "failed"},
		{"internal error", http.MethodGet, "/test/fail", "", 500, "failed"},
	}
	srv := newTestServer(t, pinger{}, io.Discard)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := do(srv, c.method, c.path, c.body, nil)
			env := envelope(t, rec)
			if rec.Code != c.status || env["error"] != c.code {
				t.Fatalf("got %d %v, want %d %s", rec.Code, env, c.status, c.code)
			}
			if msg, _ := env["message"].(string); msg == "" {
				t.Errorf("no message in %v", env)
			}
			if strings.Contains(rec.Body.String(), "secret") || strings.Contains(rec.Body.String(), "hunter2") ||
				strings.Contains(rec.Body.String(), "goroutine") {
				t.Errorf("internal detail leaked: %s", rec.Body)
			}
		})
	}
}

func TestValidJSONPassesThrough(t *testing.T) {
	t.Parallel()
	rec := do(newTestServer(t, pinger{}, io.Discard), http.MethodPost, "/test/json", `{"name":"a","qty":2}`, nil)
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), `"qty":2`) {
		t.Fatalf("got %d %s", rec.Code, rec.Body)
	}
}

func TestCorrelationIDOnEveryResponseAndLogLine(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	e := newTestServer(t, pinger{}, &logs)
	rec := do(e, http.MethodGet, "/healthz", "", map[string]string{CorrelationHeader: "abc-123"})
	if got := rec.Header().Get(CorrelationHeader); got != "abc-123" {
		t.Fatalf("correlation id %q, want the request's", got)
	}
	rec = do(e, http.MethodGet, "/test/panic", "", map[string]string{CorrelationHeader: "bad id with spaces"})
	generated := rec.Header().Get(CorrelationHeader)
	if len(generated) != 32 {
		t.Fatalf("generated correlation id %q", generated)
	}
	rec = do(e, http.MethodGet, "/nope", "", nil)
	if rec.Header().Get(CorrelationHeader) == "" {
		t.Fatal("404 without a correlation id")
	}
	lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
	if len(lines) < 4 {
		t.Fatalf("expected access and panic log lines, got %q", logs.String())
	}
	for _, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line is not JSON: %s", l)
		}
		if id, _ := m["correlation_id"].(string); id == "" {
			t.Errorf("log line without correlation_id: %s", l)
		}
	}
	if !strings.Contains(logs.String(), `"correlation_id":"`+generated+`"`) || !strings.Contains(logs.String(), "handler panicked") {
		t.Errorf("panic not logged with its correlation id: %s", logs.String())
	}
}

func TestEdgeHeaders(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, pinger{}, io.Discard)
	for _, path := range []string{"/api/status/ping", "/api/nope", "/api/site/config"} {
		rec := do(srv, http.MethodGet, path, "", nil)
		if rec.Header().Get("Cache-Control") != "no-store" {
			t.Errorf("%s: Cache-Control %q", path, rec.Header().Get("Cache-Control"))
		}
	}
	req := httptest.NewRequest(http.MethodOptions, "/api/orders", nil)
	req.Header.Set("Origin", "https://shop.example")
	req.Header.Set("Access-Control-Request-Method", "POST")
	req.Header.Set("Access-Control-Request-Headers", "content-type, ocp-apim-subscription-key")
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, req)
	h := rec.Header()
	if rec.Code != 204 || h.Get("Access-Control-Allow-Origin") != "*" || h.Get("Access-Control-Allow-Methods") != "GET, POST, OPTIONS, PUT, DELETE" ||
		h.Get("Access-Control-Allow-Headers") != "content-type, ocp-apim-subscription-key" || h.Get("Cache-Control") != "no-store" {
		t.Fatalf("preflight: %d %v", rec.Code, h)
	}
}
