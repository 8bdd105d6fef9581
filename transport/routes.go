package transport

import (
	"net/http"
	"sort"

	"github.com/labstack/echo/v4"
)

// Access is who may call a route.
type Access int

const (
	// Public routes need no credentials and are limited per client IP.
	Public Access = iota
	// Developer routes need a subscription key (or the gateway's stamp) and, when set, a scope;
	// they are limited per key.
	Developer
	// Admin routes need the session cookie, and the CSRF header when they change state; they
	// are limited per wallet.
	Admin
	// Cron routes need x-cron-secret.
	Cron
	// Signed routes need a valid signature over the raw body (the processor's webhook); the
	// handler checks it, since it needs the exact bytes.
	Signed
	// Open routes (health) need nothing and are not limited.
	Open
	// KeyOrSession routes take a subscription key with Scope (as Developer) or, when the
	// request carries the session cookie, the session (as Admin, with CSRF when they change
	// state): reads a merchant makes from scripts and from its dashboard.
	KeyOrSession
)

// Policy is a route's access decision. Every route is registered with one, so none can exist
// without an authentication decision.
type Policy struct {
	Access Access
	Scope  string // Developer: the scope required ("" = any valid key)
	Role   string // Admin: the role required ("" = any signed-in wallet)
}

// RouteInfo is a registered route and its policy.
type RouteInfo struct {
	Method, Path string
	Policy       Policy
}

func routeKey(method, path string) string { return method + " " + path }

// handle registers a route under its policy, with the matching middleware in front.
func (s *Server) handle(method, path string, p Policy, h echo.HandlerFunc) {
	var mw []echo.MiddlewareFunc
	switch p.Access {
	case Public:
		mw = append(mw, s.limitByIP)
	case Developer:
		mw = append(mw, s.developer(p.Scope))
	case Admin:
		mw = append(mw, s.admin(p.Role, method != http.MethodGet && method != http.MethodHead))
	case Cron:
		mw = append(mw, s.cron)
	case KeyOrSession:
		mw = append(mw, s.keyOrSession(p.Scope, method != http.MethodGet && method != http.MethodHead))
	}
	if method == http.MethodPost && (p.Access == Developer || p.Access == Admin || p.Access == KeyOrSession) {
		mw = append(mw, s.idempotent) // after authentication: keys are the caller's
	}
	mw = append(mw, s.routeReads(method, path)) // after authentication: reads by caller (replica.go)
	s.Echo.Add(method, path, h, mw...)
	s.policies[routeKey(method, path)] = p
}

// Routes lists every registered route with its policy, sorted.
func (s *Server) Routes() []RouteInfo {
	var out []RouteInfo
	for _, r := range s.Echo.Routes() {
		p, ok := s.policies[routeKey(r.Method, r.Path)]
		if !ok {
			p = Policy{Access: -1} // registered around handle(): the route table test fails on it
		}
		out = append(out, RouteInfo{Method: r.Method, Path: r.Path, Policy: p})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Method < out[j].Method
	})
	return out
}
