package transport

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// keyOrSession authenticates with a subscription key carrying scope when the request presents
// one (or, in gateway mode, the gateway's stamp), else with the session cookie when it carries
// one (the dashboard's links). The key a request names in its headers is what its sender chose;
// a cookie is whatever the client kept (an HTTP tool keeps the one of an earlier sign-in, expired
// or of another wallet), so a cookie never decides over a key.
func (s *Server) keyOrSession(scope string, changesState bool) echo.MiddlewareFunc {
	session, key := s.admin("", changesState), s.developer(scope)
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		bySession, byKey := session(next), key(next)
		return func(c echo.Context) error {
			if s.presentsKey(c.Request()) {
				return byKey(c)
			}
			if cookie, err := c.Cookie(SessionCookie); err == nil && cookie.Value != "" {
				return bySession(c)
			}
			return byKey(c)
		}
	}
}

// presentsKey reports whether r names a subscription: a key, or in gateway mode the gateway's
// stamp.
func (s *Server) presentsKey(r *http.Request) bool {
	if s.cfg.GatewayMode {
		return r.Header.Get("x-subscription-id") != ""
	}
	return presentedKey(r) != ""
}

// merchantOf is the merchant a request acts for: the key's wallet, or the session's.
func merchantOf(c echo.Context) string {
	if p, ok := PrincipalFrom(c); ok {
		return p.Wallet
	}
	sess, _ := SessionFrom(c)
	return sess.Wallet
}
