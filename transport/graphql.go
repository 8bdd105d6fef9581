package transport

import (
	"bytes"
	"errors"
	"io"
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
// past maxGraphQLBytes is 413 payload_too_large, as a body past the server's limit is.
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
		}
		return next(c)
	}
}

func graphqlTooLarge() *Error {
	return NewError(http.StatusRequestEntityTooLarge, "payload_too_large", "GraphQL request is larger than 64 KiB")
}
