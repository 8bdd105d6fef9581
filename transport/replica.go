package transport

import (
	"context"
	"net/http"

	"github.com/golang-jwt/jwt/v5"
	"github.com/labstack/echo/v4"

	"github.com/payledger/payledger/readmodels"
)

// ReplicaRouter sends the reads that tolerate staleness to a replica (DATABASE_REPLICA_URL,
// DESIGN 10): For returns the request's context carrying the pool its reads use; Wrote tells it
// that the callers are writing, so that their next reads see the write.
type ReplicaRouter interface {
	For(ctx context.Context, callers ...string) context.Context
	Wrote(callers ...string)
}

// staleTolerant are the read-only routes whose answers may be a moment old: a merchant's lists,
// exports, search, GraphQL and the dashboard's list, each of which waits for the replica's replay
// after its caller's own writes. A merchant's status reads (/api/receipts/status,
// /api/receipts/{id}) stay on the primary: they are answered from a cache that the primary's
// notifications keep current, and a replica could put an older status back into it. So do the
// payment page's reads of a receipt by its id (/portal/{id}, /pay/{id}, /api/portal/{id}): the
// customer comes straight from the merchant's order, made by another client, so nothing tells
// the router to wait, and a replica a moment behind answered "Receipt not found" for the receipt
// the merchant had just been given (one row by its key: the primary barely notices them, and the
// page's event stream reads the primary anyway).
var staleTolerant = map[string]bool{
	"GET /api/receipts": true, "GET /api/exports/receipts.csv": true, "GET /api/exports/split-transactions.csv": true,
	"GET /api/graphql": true, "POST /api/graphql": true, "GET /api/users/search": true, "GET /dashboard": true,
}

// routeReads is the last middleware of every route: a stale-tolerant read gets the pool its
// callers may read from; any other request but a GET or HEAD counts as a write of its callers,
// recorded before it runs (a read sent while it runs may follow its commit) and again when it
// has answered: a write slower than the router's memory of writers (a contended command, a
// flush) would otherwise be forgotten by the time its caller reads.
func (s *Server) routeReads(method, path string) echo.MiddlewareFunc {
	key := routeKey(method, path)
	tolerant := staleTolerant[key]
	write := !tolerant && method != http.MethodGet && method != http.MethodHead
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			r := s.replica
			if r == nil || (!tolerant && !write) {
				return next(c)
			}
			callers := s.readCallers(c)
			if write {
				r.Wrote(callers...)
				defer r.Wrote(callers...)
				return next(c)
			}
			c.SetRequest(c.Request().WithContext(r.For(c.Request().Context(), callers...)))
			return next(c)
		}
	}
}

// readCallers names who is calling, for read-your-writes: the wallet the route authenticated, by
// its key or by its session (a merchant writes from its dashboard and reads from its server, or
// the reverse), the wallet of a dashboard page's session, and the client's address.
func (s *Server) readCallers(c echo.Context) []string {
	out := []string{"ip:" + c.RealIP()}
	if p, ok := PrincipalFrom(c); ok && p.Wallet != "" {
		out = append(out, readmodels.WalletCaller(p.Wallet))
	}
	if sess, ok := SessionFrom(c); ok && sess.Wallet != "" {
		out = append(out, readmodels.WalletCaller(sess.Wallet))
	} else if w := s.pageSessionWallet(c); w != "" {
		out = append(out, readmodels.WalletCaller(w))
	}
	return out
}

// pageSessionWallet is the wallet of the session cookie of a page that checks its session
// itself (the dashboard's), when the token's signature and times hold. It only chooses where the
// page's reads go (a logged-out token can at most make them wait for the replica); the page's
// own check, with the revocations, decides access.
func (s *Server) pageSessionWallet(c echo.Context) string {
	cookie, err := c.Cookie(SessionCookie)
	if err != nil || cookie.Value == "" {
		return ""
	}
	claims := &sessionClaims{}
	_, err = jwt.ParseWithClaims(cookie.Value, claims, func(*jwt.Token) (any, error) { return []byte(s.cfg.JWTSecret), nil },
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}), jwt.WithExpirationRequired(),
		jwt.WithTimeFunc(s.now), jwt.WithIssuer(sessionIssuer), jwt.WithAudience(s.audience))
	if err != nil || !ValidWallet(claims.Subject) {
		return ""
	}
	return claims.Subject
}
