package transport

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/payledger/payledger/transport/gql"
)

// maxGraphQLBytes bounds a GraphQL request: its body (POST) or its query string (GET). The
// largest query gql.MaxTokens allows is a few kilobytes; a body far past it is refused before it
// is read whole, a query within it still meets the parser's token limit.
const maxGraphQLBytes = 64 << 10

// graphqlRoutes registers the read-only GraphQL API (DESIGN 8) over the user store: GET and POST
// /api/graphql with scope graphql:read. Its limits and schema are the gql package's; a request
// past maxGraphQLBytes is 413 payload_too_large, as a body past the server's limit is, and one
// that is not a GraphQL request 400 invalid_input (checkGraphQLRequest), both in the envelope.
func (s *Server) graphqlRoutes() {
	h := graphqlSized(echo.WrapHandler(gql.NewHandler(s.users, s.now)))
	read := Policy{Access: Developer, Scope: "graphql:read"}
	s.handle(http.MethodGet, "/api/graphql", read, h)
	s.handle(http.MethodPost, "/api/graphql", read, h)
}

func graphqlSized(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		if len(r.URL.RawQuery) > maxGraphQLBytes || r.ContentLength > maxGraphQLBytes {
			return graphqlTooLarge()
		}
		var body []byte
		if r.Body != nil && r.Body != http.NoBody {
			b, err := io.ReadAll(io.LimitReader(r.Body, maxGraphQLBytes+1))
			if err != nil {
				var he *echo.HTTPError
				if errors.As(err, &he) {
					return he // the server's body limit
				}
				return InvalidInput("Invalid request parameters: unreadable body")
			}
			if len(b) > maxGraphQLBytes {
				return graphqlTooLarge()
			}
			r.Body = io.NopCloser(bytes.NewReader(b))
			body = b
		}
		if err := checkGraphQLRequest(r, body); err != nil {
			return err
		}
		return next(c)
	}
}

// A request that is not a GraphQL request at all is the API's 400 invalid_input in the spec's
// envelope, as on every other route: gqlgen answered it 400 with a GraphQL `errors` list that
// echoed the whole body back ("json request body could not be decoded: ... body:{...}"), or
// "transport not supported" without a Content-Type, neither the documented error shape. What
// gqlgen answers once the request is one (parse and validation errors: 422; limits: 200) stays.

// graphqlParams is a GraphQL request's shape: the POST body, and GET's variables and extensions.
type graphqlParams struct {
	Query         string         `json:"query"`
	OperationName string         `json:"operationName"`
	Variables     map[string]any `json:"variables"`
	Extensions    map[string]any `json:"extensions"`
}

// checkGraphQLRequest refuses what is not a GraphQL request: a POST whose body is not a JSON
// request object (or not labelled application/json), a GET whose variables or extensions are not
// JSON objects.
func checkGraphQLRequest(r *http.Request, body []byte) error {
	if r.Method == http.MethodGet {
		return checkGraphQLQuery(r)
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get(echo.HeaderContentType)); err != nil || mt != echo.MIMEApplicationJSON {
		return InvalidInput("Invalid request parameters: a GraphQL POST body is Content-Type application/json")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var p graphqlParams
	if err := dec.Decode(&p); err != nil {
		return InvalidInput("Invalid request parameters: the body must be a JSON object {query, operationName?, variables?, extensions?} (query and operationName strings, variables and extensions objects)")
	}
	if p.Query == "" {
		return errNoGraphQLQuery
	}
	return nil
}

// errNoGraphQLQuery: a request without its operation (no query, or null or "") is not a GraphQL
// request (docs/graphql.md: "a JSON object with a string query"); gqlgen answered it 422 with its
// own errors list ("no operation provided"), not the envelope.
var errNoGraphQLQuery = InvalidInput("Invalid request parameters: query is required: the GraphQL document to run")

func checkGraphQLQuery(r *http.Request) error {
	q := r.URL.Query()
	if q.Get("query") == "" {
		return errNoGraphQLQuery
	}
	for _, name := range []string{"variables", "extensions"} {
		if v := q.Get(name); v != "" {
			var m map[string]any
			if json.Unmarshal([]byte(v), &m) != nil {
				return InvalidInput("Invalid request parameters: " + name + " must be a JSON object")
			}
		}
	}
	return nil
}

func graphqlTooLarge() *Error {
	return NewError(http.StatusRequestEntityTooLarge, "payload_too_large", "GraphQL request is larger than 64 KiB")
}
