package transport

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestGraphQLNonRequestsAreInvalidInput: what is not a GraphQL request (a body that is not a JSON
// request object, a batch array, no application/json, GET variables that are not an object) is
// 400 invalid_input in the spec's envelope, and never echoes the body. gqlgen answered 400 with
// a GraphQL errors list holding the whole body ("... body:{...}"), or "transport not supported"
// without a Content-Type: not the documented error shape (docs/openapi.yaml's Error).
func TestGraphQLNonRequestsAreInvalidInput(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(false)
	key := e.key(m.wallet, "graphql:read")
	const marker = "secret-looking-marker-7f3a"
	for _, tc := range []struct {
		name string
		r    req
	}{
		{"query not a string", req{method: http.MethodPost, path: "/api/graphql", body: `{"query": 5, "x": "` + marker + `"}`}},
		{"truncated JSON", req{method: http.MethodPost, path: "/api/graphql", body: `{"query":"{ leaderboard { wallet } }", "x": "` + marker + `"`}},
		{"a batch", req{method: http.MethodPost, path: "/api/graphql", body: `[{"query":"{ leaderboard { wallet } }", "x": "` + marker + `"}]`}},
		{"variables not an object", req{method: http.MethodPost, path: "/api/graphql", body: `{"query":"{ leaderboard { wallet } }","variables":"` + marker + `"}`}},
		{"no body", req{method: http.MethodPost, path: "/api/graphql"}},
		{"not JSON", req{method: http.MethodPost, path: "/api/graphql", body: `{"query":"{ leaderboard { wallet } }"}`, header: map[string]string{"Content-Type": "text/plain"}}},
		{"GET variables not JSON", req{method: http.MethodGet, path: "/api/graphql?query=" + url.QueryEscape("{ leaderboard { wallet } }") + "&variables=" + marker}},
		{"GET extensions not an object", req{method: http.MethodGet, path: "/api/graphql?query=" + url.QueryEscape("{ leaderboard { wallet } }") + "&extensions=[1]"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.r.header == nil {
				tc.r.header = map[string]string{}
			}
			tc.r.header["Ocp-Apim-Subscription-Key"] = key
			rec := e.do(tc.r)
			var env struct{ Error, Message string }
			if rec.Code != http.StatusBadRequest || json.Unmarshal(rec.Body.Bytes(), &env) != nil || env.Error != "invalid_input" ||
				strings.Contains(rec.Body.String(), marker) {
				t.Fatalf("%d %s", rec.Code, rec.Body)
			}
		})
	}
	// A GraphQL request is still gqlgen's to answer: a syntax error is 422 with errors.
	if status, r := e.graphql(key, `{ leaderboard { wallet `, nil); status != 422 || len(r.Errors) == 0 {
		t.Fatalf("a syntax error: %d %+v", status, r.Errors)
	}
	if status, r := e.graphql(key, `query($n: Int) { leaderboard(first: $n) { wallet } }`, map[string]any{"n": 1}); status != 200 || len(r.Errors) != 0 {
		t.Fatalf("a request with variables: %d %+v", status, r.Errors)
	}
	rec := e.do(req{method: http.MethodGet, path: "/api/graphql?query=" + url.QueryEscape("query($n: Int) { leaderboard(first: $n) { wallet } }") + "&variables=" + url.QueryEscape(`{"n":1}`),
		header: map[string]string{"Ocp-Apim-Subscription-Key": key}})
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), `"leaderboard"`) {
		t.Fatalf("GET with variables: %d %s", rec.Code, rec.Body)
	}
}
