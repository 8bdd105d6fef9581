package tracing

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"
)

// TestAClientsMethodDoesNotNameTheSpan: a request whose method is not one of HTTP's (any token
// up to the server's header limit) is traced as "_OTHER"; its span was named by it, name and
// attribute, so one request could make a span of a megabyte.
func TestAClientsMethodDoesNotNameTheSpan(t *testing.T) {
	rec, tp := recorder()
	e := echo.New()
	e.Use(Middleware(tp))
	e.GET("/api/receipts/:id", func(c echo.Context) error { return c.NoContent(http.StatusOK) })
	long := strings.Repeat("X", 100_000)
	for _, m := range []string{long, "PROPFIND", http.MethodGet} {
		e.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(m, "/api/receipts/rcpt_1", nil))
	}
	spans := rec.Ended()
	if len(spans) != 3 {
		t.Fatalf("%d spans", len(spans))
	}
	for i, want := range []string{"_OTHER", "_OTHER", http.MethodGet} {
		s := spans[i]
		if !strings.HasPrefix(s.Name(), want+" ") || len(s.Name()) > 100 {
			t.Fatalf("span %d is named %q (%d bytes), want %s and its route", i, s.Name()[:min(len(s.Name()), 40)], len(s.Name()), want)
		}
		for _, a := range s.Attributes() {
			if a.Key == "http.request.method" && a.Value.AsString() != want {
				t.Fatalf("span %d: method attribute of %d bytes, want %s", i, len(a.Value.AsString()), want)
			}
		}
	}
}
