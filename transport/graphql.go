package transport

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/payledger/payledger/transport/gql"
)

// graphqlRoutes registers the read-only GraphQL API (DESIGN 8) over the user store: GET and POST
// /api/graphql with scope graphql:read. Its limits and schema are the gql package's.
func (s *Server) graphqlRoutes() {
	h := echo.WrapHandler(gql.NewHandler(s.users, s.now))
	read := Policy{Access: Developer, Scope: "graphql:read"}
	s.handle(http.MethodGet, "/api/graphql", read, h)
	s.handle(http.MethodPost, "/api/graphql", read, h)
}
