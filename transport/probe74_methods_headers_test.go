package transport

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
)

// TestProbe74OddMethodsAndHeadersStayInTheEnvelope (stop 74 probe): every registered route, sent
// with an unrouted method (PATCH, TRACE, an invented one), a preflight from another site, HEAD, or
// with odd headers (a 9,000-character or tabbed Idempotency-Key, a UTF-16 or XML content type, a
// gzip encoding of a plain body, a 26-digit Last-Event-ID, a 9,000-character bearer, CSRF token or
// traceparent, an invalid Host) with valid credentials, answers without a panic, below 500 (a
// 503 only for what this test service leaves unconfigured: the processor and the subscription
// charger), and an /api/ error in the envelope. A guard: it passed on the first run.
func TestProbe74OddMethodsAndHeadersStayInTheEnvelope(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(true)
	id := e.receiptFor(m, "10.00")
	long := strings.Repeat("a", 9000)
	variants := []struct {
		name   string
		method string
		hdr    map[string]string
		body   string
	}{
		{"patch", "PATCH", nil, "{}"},
		{"options", "OPTIONS", map[string]string{"Origin": "https://evil.example", "Access-Control-Request-Method": "POST"}, ""},
		{"trace", "TRACE", nil, ""},
		{"foo", "FOO", nil, ""},
		{"head", "HEAD", nil, ""},
		{"idemlong", "", map[string]string{"Idempotency-Key": long}, "{}"},
		{"idemctl", "", map[string]string{"Idempotency-Key": "a\tb"}, "{}"},
		{"ctype", "", map[string]string{"Content-Type": "application/json; charset=utf-16"}, "{}"},
		{"ctypexml", "", map[string]string{"Content-Type": "text/xml"}, "<a/>"},
		{"gzip", "", map[string]string{"Content-Encoding": "gzip"}, "{}"},
		{"lastid", "", map[string]string{"Last-Event-ID": "99999999999999999999999999"}, ""},
		{"bearerlong", "", map[string]string{"Authorization": "Bearer " + long}, ""},
		{"csrflong", "", map[string]string{CSRFHeader: long}, "{}"},
		{"traceparent", "", map[string]string{"traceparent": "00-" + long}, ""},
		{"host", "", map[string]string{"Host": "evil.example:99999"}, ""},
	}
	for _, r := range e.srv.Routes() {
		path := strings.ReplaceAll(strings.ReplaceAll(r.Path, ":id", id), ":eventId", uuid.NewString())
		if strings.Contains(r.Path, "/webhooks/endpoints/:id") || strings.Contains(r.Path, "/admin/keys/:id") || strings.Contains(r.Path, "deliveries/:id") {
			path = strings.ReplaceAll(r.Path, ":id", uuid.NewString())
		}
		path = strings.ReplaceAll(path, "*", "x.js")
		for _, v := range variants {
			method := v.method
			if method == "" {
				method = r.Method
			}
			body := v.body
			if method == "GET" || method == "HEAD" {
				body = ""
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			var hr *http.Request
			if body != "" {
				hr = httptest.NewRequest(method, path, strings.NewReader(body)).WithContext(ctx)
				hr.Header.Set("Content-Type", "application/json")
			} else {
				hr = httptest.NewRequest(method, path, nil).WithContext(ctx)
			}
			hr.RemoteAddr = "10.9.9.9:1000"
			switch r.Policy.Access {
			case Developer:
				hr.Header.Set("Ocp-Apim-Subscription-Key", m.key)
			case Admin, KeyOrSession, Public:
				for _, c := range m.cookies {
					hr.AddCookie(c)
				}
				hr.Header.Set(CSRFHeader, m.csrf)
			case Cron:
				hr.Header.Set("x-cron-secret", testCronSecret)
			}
			for k, val := range v.hdr {
				if k == "Host" {
					hr.Host = val
					continue
				}
				hr.Header.Set(k, val)
			}
			rec := httptest.NewRecorder()
			func() {
				defer func() {
					if p := recover(); p != nil {
						t.Errorf("%s %s [%s]: panic %v", method, r.Path, v.name, p)
					}
				}()
				e.srv.ServeHTTP(rec, hr)
			}()
			cancel()
			if rec.Code == http.StatusServiceUnavailable && unconfigured(rec) {
				continue // the test service has no processor and no charger
			}
			if rec.Code >= 500 {
				t.Errorf("%s %s [%s]: %d %s", method, r.Path, v.name, rec.Code, clip(rec.Body.String()))
			}
			if rec.Code >= 400 && strings.HasPrefix(r.Path, "/api/") && method != "HEAD" {
				var env map[string]any
				if json.Unmarshal(rec.Body.Bytes(), &env) != nil || env["error"] == nil || env["message"] == nil {
					t.Errorf("%s %s [%s]: %d not in the envelope: %s", method, r.Path, v.name, rec.Code, clip(rec.Body.String()))
				}
			}
		}
	}
}

// unconfigured reports a 503 naming a part the test service leaves unconfigured.
func unconfigured(rec *httptest.ResponseRecorder) bool {
	var env struct {
		Error string `json:"error"`
	}
	return json.Unmarshal(rec.Body.Bytes(), &env) == nil && strings.HasSuffix(env.Error, "_not_configured")
}
