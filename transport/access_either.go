package transport

import (
	"github.com/labstack/echo/v4"
)

// keyOrSession authenticates with the session cookie when the request carries one (the
// dashboard's links), else with a subscription key carrying scope.
func (s *Server) keyOrSession(scope string, changesState bool) echo.MiddlewareFunc {
	session, key := s.admin("", changesState), s.developer(scope)
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		bySession, byKey := session(next), key(next)
		return func(c echo.Context) error {
			if cookie, err := c.Cookie(SessionCookie); err == nil && cookie.Value != "" {
				return bySession(c)
			}
			return byKey(c)
		}
	}
}

// merchantOf is the merchant a request acts for: the key's wallet, or the session's.
func merchantOf(c echo.Context) string {
	if p, ok := PrincipalFrom(c); ok {
		return p.Wallet
	}
	sess, _ := SessionFrom(c)
	return sess.Wallet
}
