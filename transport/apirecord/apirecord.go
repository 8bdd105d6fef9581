// Package apirecord records the HTTP exchanges of a package's tests and, after they ran, checks
// every answer against docs/openapi.yaml. transport's internal tests and transporttest (the
// audience packages' harness) share it; it imports neither, so both may use it.
package apirecord

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/payledger/payledger/docs"
)

// recorded holds every response the tests recorded; Main validates them all against
// docs/openapi.yaml after the tests ran.
var recorded struct {
	sync.Mutex
	list []exchange
}

type exchange struct {
	method, path, query string
	reqHeader           http.Header
	status              int
	header              http.Header
	body                []byte
}

// Record keeps one exchange for the check after the tests.
func Record(r *http.Request, rec *httptest.ResponseRecorder) {
	recorded.Lock()
	defer recorded.Unlock()
	recorded.list = append(recorded.list, exchange{method: r.Method, path: r.URL.Path, query: r.URL.RawQuery,
		reqHeader: r.Header.Clone(), status: rec.Code, header: rec.Header().Clone(), body: bytes.Clone(rec.Body.Bytes())})
}

// Main runs the tests, then fails them when a recorded response does not match docs/openapi.yaml.
// A package's TestMain calls it.
func Main(m *testing.M) {
	code := m.Run()
	if code == 0 && !testing.Short() {
		if problems := validateRecorded(); len(problems) > 0 {
			fmt.Fprintf(os.Stderr, "FAIL: %d recorded responses do not match docs/openapi.yaml:\n%s\n", len(problems), strings.Join(problems, "\n"))
			code = 1
		}
	}
	os.Exit(code)
}

func validateRecorded() []string {
	doc, err := docs.OpenAPI()
	if err != nil {
		return []string{err.Error()}
	}
	openapi3filter.RegisterBodyDecoder("text/html", openapi3filter.PlainBodyDecoder)
	openapi3filter.RegisterBodyDecoder("text/csv", openapi3filter.PlainBodyDecoder)
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		return []string{err.Error()}
	}
	seen := map[string]bool{}
	var problems []string
	recorded.Lock()
	defer recorded.Unlock()
	for _, x := range recorded.list {
		if msg := validate(router, x); msg != "" && !seen[msg] {
			seen[msg] = true
			problems = append(problems, msg)
		}
	}
	sort.Strings(problems)
	return problems
}

// validate checks one exchange: "" when it matches (or its route is unknown to the document:
// unknown routes answer the error envelope, checked by their own tests).
func validate(router routers.Router, x exchange) string {
	req := httptest.NewRequest(x.method, "http://localhost:8080"+x.path+"?"+x.query, nil)
	req.Header = x.reqHeader
	route, params, err := router.FindRoute(req)
	if err == routers.ErrPathNotFound || err == routers.ErrMethodNotAllowed {
		return ""
	}
	if err != nil {
		return fmt.Sprintf("%s %s: %v", x.method, x.path, err)
	}
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, IncludeResponseStatus: true}}
	err = openapi3filter.ValidateResponse(context.Background(), &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in, Status: x.status, Header: x.header, Body: io.NopCloser(bytes.NewReader(x.body)),
		Options: &openapi3filter.Options{IncludeResponseStatus: true},
	})
	if err != nil {
		msg := err.Error()
		if i := strings.IndexByte(msg, '\n'); i > 0 {
			msg = msg[:i]
		}
		return fmt.Sprintf("%s %s -> %d: %s", x.method, route.Path, x.status, msg)
	}
	return ""
}
