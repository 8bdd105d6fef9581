package transport

import (
	"context"
	"errors"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/payledger/payledger/internal/cache"
	"github.com/payledger/payledger/readmodels"
)

// How often a long-lived answer (an event stream, an export) re-checks the key or session that
// opened it: at once on every revocation the database announces (RevokedChannel,
// SessionsEndedChannel), and besides every credentialPoll while no announcement can arrive (the
// listener is down or not configured) and every credentialSafety while it can. DESIGN 10: a
// stream ends within 5 s after its key is revoked or its session ends.
const (
	credentialPoll   = 2 * time.Second
	credentialSafety = 30 * time.Second
)

// watchRevocations has the announcements of key revocations and ended sessions wake the streams
// (without inv, none arrive: the streams poll).
func (s *Server) watchRevocations(inv *cache.Invalidations) {
	s.revocations = cache.NewSignal()
	if inv != nil {
		inv.Register(readmodels.RevokedChannel, s.revocations)
		inv.Register(readmodels.SessionsEndedChannel, s.revocations)
	}
}

// whileAuthorized returns a context of the request that is cancelled once the key or session
// that authenticated it is refused (revoked, logged out, expired), and its stop, which the
// handler must call before it returns: stop waits for the watcher, which reads the request's
// echo.Context (recycled once the handler returns). A datastore that does not answer refuses
// nothing: the stream's client re-authenticates when it reconnects.
func (s *Server) whileAuthorized(c echo.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(c.Request().Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer cancel()
		for {
			woken, listening := s.revocations.Wait()
			every := credentialPoll
			if listening {
				every = credentialSafety
			}
			timer := time.NewTimer(every)
			select {
			case <-ctx.Done():
				timer.Stop()
				return
			case <-woken:
			case <-timer.C:
			}
			timer.Stop()
			if s.credentialRefused(ctx, c) {
				return
			}
		}
	}()
	return ctx, func() { cancel(); <-done }
}

// credentialRefused reports whether the request's key or session is refused now.
func (s *Server) credentialRefused(ctx context.Context, c echo.Context) bool {
	if p, ok := PrincipalFrom(c); ok {
		var err error
		if s.cfg.GatewayMode {
			_, err = s.keys.ByID(ctx, p.KeyID)
		} else {
			_, err = s.keys.Authenticate(ctx, p.Secret)
		}
		return errors.Is(err, readmodels.ErrNotFound)
	}
	if _, ok := SessionFrom(c); ok {
		_, _, err := s.parseSession(c)
		return errors.Is(err, errSession)
	}
	return false
}
