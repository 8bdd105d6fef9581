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

// TestBadQueriesAreRefusedInTheEnvelope (stop 73, second probe): every GET route, sent
// wrong-typed, out-of-range, duplicated and oversized query parameters with valid credentials,
// answers below 500, and a 4xx in the error envelope; nothing is written.
func TestBadQueriesAreRefusedInTheEnvelope(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(true)
	id := e.receiptFor(m, "10.00")
	long := strings.Repeat("9", 20_000)
	queries := []string{
		"limit=abc&cursor=%00&status=zz&from=abc&to=1e400&receiptId=" + long + "&token=" + long + "&q=" + long + "&ids=" + long,
		"limit=-1&from=-1&to=-99999999999999999999&scan=-5&minXp=abc&maxXp=1e400&first=abc&address=0x12&jurisdiction=" + long,
		"limit=99999999999999999999&limit=1&cursor=" + long + "&from=1&to=0&wallet=" + long + "&subscriptionId=" + long + "&merchant=x&customer=y",
		"limit=1.5&cursor=eyJ9&status=paid&status=failed&from=1e3&to=" + long + "&slug=" + long + "&live=maybe&domains=" + long + "&query=" + long,
	}
	for _, r := range e.srv.Routes() {
		if r.Method != http.MethodGet {
			continue
		}
		path := strings.ReplaceAll(strings.ReplaceAll(r.Path, ":id", id), ":eventId", uuid.NewString())
		if strings.Contains(r.Path, "/webhooks/endpoints/:id") {
			path = strings.ReplaceAll(r.Path, ":id", uuid.NewString())
		}
		for i, q := range queries {
			before := e.probeCounts()
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			hr := httptest.NewRequest(http.MethodGet, path+"?"+q, nil).WithContext(ctx)
			hr.RemoteAddr = "10.9.9.9:1000"
			switch r.Policy.Access {
			case Developer:
				hr.Header.Set("Ocp-Apim-Subscription-Key", m.key)
			case Admin, KeyOrSession, Public:
				for _, c := range m.cookies {
					hr.AddCookie(c)
				}
			case Cron:
				hr.Header.Set("x-cron-secret", testCronSecret)
			}
			if r.Path == "/api/webhooks/stream" {
				hr.Header.Set("Last-Event-ID", "x")
			}
			rec := httptest.NewRecorder()
			e.srv.ServeHTTP(rec, hr)
			cancel()
			if rec.Code >= 500 {
				t.Errorf("GET %s query %d: %d %s", r.Path, i, rec.Code, clip(rec.Body.String()))
			}
			if rec.Code >= 400 && rec.Code < 500 && strings.HasPrefix(r.Path, "/api/") {
				var env map[string]any
				if json.Unmarshal(rec.Body.Bytes(), &env) != nil || env["error"] == nil || env["message"] == nil {
					t.Errorf("GET %s query %d: %d not in the envelope: %s", r.Path, i, rec.Code, clip(rec.Body.String()))
				}
			}
			if after := e.probeCounts(); after != before {
				t.Errorf("GET %s query %d: rows changed: %s -> %s", r.Path, i, before, after)
			}
		}
	}
}
