package transport

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/payledger/payledger/docs"
)

// TestOpenAPICoversEveryRoute walks the router: a route missing from docs/openapi.yaml fails.
func TestOpenAPICoversEveryRoute(t *testing.T) {
	t.Parallel()
	doc, err := docs.OpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, nil)
	for _, r := range e.srv.Routes() {
		path := r.Path
		for _, seg := range strings.Split(path, "/") {
			if strings.HasPrefix(seg, ":") {
				path = strings.Replace(path, seg, "{"+seg[1:]+"}", 1)
			}
			if seg == "*" {
				path = strings.Replace(path, "*", "{path}", 1)
			}
		}
		item := doc.Paths.Value(path)
		if item == nil || item.GetOperation(r.Method) == nil {
			t.Errorf("%s %s is not in docs/openapi.yaml", r.Method, path)
		}
	}
	rec := e.do(req{method: http.MethodGet, path: "/api/openapi.json"})
	var served map[string]any
	if rec.Code != 200 || json.Unmarshal(rec.Body.Bytes(), &served) != nil || served["openapi"] != "3.1.0" {
		t.Fatalf("/api/openapi.json: %d", rec.Code)
	}
}
