package transport

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/payledger/payledger/internal/cache"
	"github.com/payledger/payledger/readmodels"
)

// How often a long-lived answer (an event stream, an export) re-checks the key or session that
// opened it: at once on every revocation the database announces (RevokedChannel,
// SessionsEndedChannel), and besides every credentialPoll while no announcement can arrive (the
// listener is down or not configured) and every credentialSafety while it can. An expiry is
// announced by nobody, so a credential that expires (a session's token) is also compared with
// the service's clock every credentialClock. DESIGN 10: a stream ends within 5 s after its key is
// revoked or its session ends.
const (
	credentialPoll   = 2 * time.Second
	credentialSafety = 30 * time.Second
	credentialClock  = time.Second
)

// watchRevocations has the announcements of key revocations and ended sessions wake the streams
// (without inv, none arrive: the streams poll), and has degraded mode forget each key revoked
// anywhere (RevokedKeyChannel names it): a revocation this instance heard of is never accepted
// while the datastore is down.
func (s *Server) watchRevocations(inv *cache.Invalidations) {
	s.revocations = cache.NewSignal()
	if inv != nil {
		inv.Register(readmodels.RevokedKeyChannel, cache.Subscriber{OnNotify: s.forgetRevokedKey})
		inv.Register(readmodels.RevokedChannel, s.revocations)
		inv.Register(readmodels.SessionsEndedChannel, s.revocations)
	}
}

// forgetRevokedKey has degraded mode forget the key whose id a revocation announced.
func (s *Server) forgetRevokedKey(payload string) {
	id, err := uuid.Parse(payload)
	if err != nil || s.known == nil { // s.known: announced while the server was being built
		return
	}
	s.known.revoked(id)
}

// whileAuthorized returns a context of the request that is cancelled once the key or session
// that authenticated it is refused (revoked, logged out, expired), and its stop, which the
// handler must call before it returns: stop waits for the watcher, which reads the request's
// echo.Context (recycled once the handler returns). A datastore that does not answer refuses
// nothing: the stream's client re-authenticates when it reconnects.
func (s *Server) whileAuthorized(c echo.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(c.Request().Context())
	expires := credentialExpiry(c)
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer cancel()
		for {
			// Subscribed before the check: an announcement made while the check reads (or between
			// the request's authentication and now) wakes the next wait instead of being missed
			// until credentialSafety.
			woken, listening := s.revocations.Wait()
			if s.credentialRefused(ctx, c) {
				cutWrites(c)
				return
			}
			every := credentialPoll
			if listening {
				every = credentialSafety
			}
			if !s.awaitRecheck(ctx, woken, every, expires) {
				if !expires.IsZero() && !s.now().Before(expires) {
					cutWrites(c) // expired: refused as a revoked credential is
				}
				return
			}
		}
	}()
	return ctx, func() { cancel(); <-done }
}

// cutWrites ends the writes of a refused credential's answer within refusedWriteGrace: the
// cancelled context ends a handler between writes, not in one, and a write to a client that
// stopped reading blocks until the write deadline (the stream's lifetime, the export's timeout),
// holding its slot and goroutines that long after the key was revoked or the session ended. The
// grace lets a handler's last prompt write (an export's error answer) through.
func cutWrites(c echo.Context) {
	_ = http.NewResponseController(c.Response()).SetWriteDeadline(time.Now().Add(refusedWriteGrace))
}

// refusedWriteGrace is how long a refused credential's answer may still write (cutWrites).
const refusedWriteGrace = time.Second

// awaitRecheck waits until the credential must be read again (an announcement, or every has
// passed) and reports true then; false when the request ends or the credential has expired
// (expires, zero for a credential without an expiry). The expiry is read on the service's clock,
// which decides it (parseSession), every credentialClock rather than with a timer set to it: that
// clock can move on without the timer (a test's clock, a host's suspend or clock step).
func (s *Server) awaitRecheck(ctx context.Context, woken <-chan struct{}, every time.Duration, expires time.Time) bool {
	timer := time.NewTimer(every)
	defer timer.Stop()
	var clock <-chan time.Time
	if !expires.IsZero() {
		tick := time.NewTicker(credentialClock)
		defer tick.Stop()
		clock = tick.C
	}
	for {
		select {
		case <-ctx.Done():
			return false
		case <-woken:
			return true
		case <-timer.C:
			return true
		case <-clock:
			if !s.now().Before(expires) {
				return false
			}
		}
	}
}

// credentialExpiry is when the request's credential stops being accepted: a session's token's
// expiry; zero for a key (keys have none: only a revocation ends them).
func credentialExpiry(c echo.Context) time.Time {
	if _, ok := PrincipalFrom(c); ok {
		return time.Time{}
	}
	if sess, ok := SessionFrom(c); ok {
		return sess.ExpiresAt
	}
	return time.Time{}
}

// credentialRefused reports whether the request's key or session is refused now.
func (s *Server) credentialRefused(ctx context.Context, c echo.Context) bool {
	if p, ok := PrincipalFrom(c); ok {
		var err error
		if s.cfg.GatewayMode {
			_, err = s.keys.ByID(ctx, p.KeyID)
		} else {
			_, err = s.keys.AuthenticateWithin(ctx, p.Secret, 0)
		}
		return errors.Is(err, readmodels.ErrNotFound)
	}
	if _, ok := SessionFrom(c); ok {
		_, _, err := s.parseSession(c)
		return errors.Is(err, errSession)
	}
	return false
}
