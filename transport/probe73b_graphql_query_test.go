package transport

import (
	"encoding/json"
	"net/http"
	"testing"
)

// TestGraphQLWithoutAQueryIsInvalidInput (stop 73, second probe): a GraphQL request names its
// operation in query (docs/graphql.md: "a JSON object with a string query"); one without it (GET
// without ?query=, a POST body {} or with query null or "") is not a GraphQL request and is 400
// invalid_input in the spec's envelope. gqlgen answered 422 with its own errors list ("no
// operation provided"), not the documented shape.
func TestGraphQLWithoutAQueryIsInvalidInput(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(false)
	key := e.key(m.wallet, "graphql:read")
	for name, r := range map[string]req{
		"GET without query":   {method: http.MethodGet, path: "/api/graphql"},
		"GET empty query":     {method: http.MethodGet, path: "/api/graphql?query=&operationName=x"},
		"POST {}":             {method: http.MethodPost, path: "/api/graphql", body: `{}`},
		"POST query null":     {method: http.MethodPost, path: "/api/graphql", body: `{"query":null}`},
		"POST query empty":    {method: http.MethodPost, path: "/api/graphql", body: `{"query":""}`},
		"POST only variables": {method: http.MethodPost, path: "/api/graphql", body: `{"variables":{"n":1}}`},
	} {
		r.header = map[string]string{"Ocp-Apim-Subscription-Key": key, "Content-Type": "application/json"}
		rec := e.do(r)
		var env struct{ Error, Message string }
		if rec.Code != http.StatusBadRequest || json.Unmarshal(rec.Body.Bytes(), &env) != nil || env.Error != "invalid_input" || env.Message == "" {
			t.Errorf("%s: %d %s, want 400 invalid_input in the envelope", name, rec.Code, rec.Body)
		}
	}
	if status, r := e.graphql(key, `{ leaderboard(first: 1) { wallet } }`, nil); status != 200 || len(r.Errors) != 0 {
		t.Fatalf("a query: %d %+v", status, r.Errors)
	}
}
