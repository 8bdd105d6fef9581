package transport

import (
	"context"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
)

// The foundation's face to the audience packages mounted on it (transport/dashboard,
// transport/portal): they register their routes under the same access policies, middleware and
// error envelope as the API's, and use its sessions and its receipt watch, through these methods
// only. web.Build lists them in Deps.Mounts (the one place Deps are filled); New registers them
// after the API's routes.

// Mount registers an audience package's routes on the server.
type Mount func(*Server) error

// Handle registers a route under policy p (routes.go).
func (s *Server) Handle(method, path string, p Policy, h echo.HandlerFunc) {
	s.handle(method, path, p, h)
}

// Config is the HTTP layer's configuration.
func (s *Server) Config() Config { return s.cfg }

// Now is the service's clock.
func (s *Server) Now() time.Time { return s.now() }

// ErrNoSession is PageSession's answer to a request without a valid session (401 in the
// envelope; a page redirects to its sign-in instead).
var ErrNoSession error = errSession

// PageSession is the request's session, checked as the admin routes check it (ErrNoSession
// without one), and the CSRF token issued with it when the request's CSRF cookie is that token
// ("" otherwise): a page hands it to its script, which sends it with the forms.
func (s *Server) PageSession(c echo.Context) (Session, string, error) {
	sess, claims, err := s.parseSession(c)
	if err != nil {
		return Session{}, "", err
	}
	csrf := ""
	if ck, err := c.Cookie(CSRFCookie); err == nil && equalSecret(hashHex(ck.Value), claims.CSRF) {
		csrf = ck.Value
	}
	return sess, csrf, nil
}

// StartSession signs wallet in (the session and CSRF cookies), as the API's login does.
func (s *Server) StartSession(c echo.Context, wallet string, now time.Time) error {
	_, err := s.startSession(c, wallet, now)
	return err
}

// WhileAuthorized is the request's context, cancelled once its key or session is refused, and
// its stop, which the handler must call before it returns (stream_credentials.go).
func (s *Server) WhileAuthorized(c echo.Context) (context.Context, context.CancelFunc) {
	return s.whileAuthorized(c)
}

// WatchReceipt returns a channel woken when receipt id changes (announced by the receipts
// projection), and the function that unsubscribes.
func (s *Server) WatchReceipt(id string) (<-chan struct{}, func()) {
	return s.receiptWatch.subscribe(id)
}

// Listening reports whether the receipts projection's announcements are heard now (else a
// stream polls every EventsPoll).
func (s *Server) Listening() bool { return s.receiptWatch.listening.Load() }

// Stopping is closed when the HTTP server shuts down: every event stream ends then.
func (s *Server) Stopping() <-chan struct{} { return s.receiptWatch.done }

// Pace of the event streams (receipt_watch.go), for the streams of the audience packages.
const (
	EventsPoll      = eventsPoll
	EventsSafety    = eventsSafety
	EventsHeartbeat = eventsHeartbeat
	EventsLifetime  = eventsLifetime
)

// OutliveTimeouts lifts the server's deadlines for one response that streams by design
// (streaming.go).
func OutliveTimeouts(w http.ResponseWriter) { outliveTimeouts(w) }

// Color is c when it is a colour the shop config accepts (colorRE), else "".
func Color(c string) string {
	if colorRE.MatchString(c) {
		return c
	}
	return ""
}

// Token finds a token payable on the chain: ETH or one of Tokens (portal_chain.go).
func (c PaymentChain) Token(symbol string) (PaymentToken, bool) { return c.token(symbol) }

// StreamEnds reports whether nothing more happens to a receipt of status st that a page shows:
// its stream may end (receipt_watch.go).
var StreamEnds = streamEnds
