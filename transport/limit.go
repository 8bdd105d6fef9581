package transport

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/transport/ratelimit"
)

// Limiter counts requests against a per-minute limit.
type Limiter interface {
	Allow(ctx context.Context, key string, perMinute int) (ratelimit.Result, error)
}

// limit counts the request against key; over the limit it answers 429 with resetAt. Every
// limited response carries the X-RateLimit-* headers. A limiter that fails (Redis down) lets the
// request through: an outage of the limiter must not take the API down with it.
func (s *Server) limit(c echo.Context, key string, perMinute int) error {
	res, err := s.limiter.Allow(c.Request().Context(), key, perMinute)
	if err != nil {
		zerolog.Ctx(c.Request().Context()).Warn().Err(err).Msg("rate limiter unavailable; request let through")
		return nil
	}
	h := c.Response().Header()
	h.Set("X-RateLimit-Limit", strconv.Itoa(res.Limit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(res.Remaining))
	if !res.Allowed {
		kind, _, _ := strings.Cut(key, ":")
		return s.rateLimited(c, kind, res.RetryAt)
	}
	h.Set("X-RateLimit-Reset", strconv.FormatInt(res.ResetAt.UnixMilli(), 10))
	return nil
}

// rateLimited is the 429 answer, with the moment the client may try again.
func (s *Server) rateLimited(c echo.Context, kind string, retryAt time.Time) error {
	s.metrics.limited.WithLabelValues(kind).Inc()
	reset := retryAt.UnixMilli()
	h := c.Response().Header()
	h.Set("X-RateLimit-Reset", strconv.FormatInt(reset, 10))
	h.Set("Retry-After", strconv.FormatInt(max(1, (reset-s.now().UnixMilli()+999)/1000), 10))
	return &Error{Status: http.StatusTooManyRequests, Code: "rate_limited", Message: "Rate limit exceeded",
		Extra: map[string]any{"resetAt": reset}}
}

// authFailuresPerMinute is how many wrong cron secrets or processor signatures one client
// address may send per minute; past it, every attempt from it, right or wrong, is 429 until the
// minute is over, so the secret cannot be guessed at request speed.
const authFailuresPerMinute = 10

// failGate remembers the client addresses that sent too many wrong secrets, until when.
type failGate struct {
	mu    sync.Mutex
	until map[string]time.Time
	// spare counts the failures (refused keys, wrong secrets) in this instance while the
	// configured limiter fails (Redis down), made at the first such failure (failureAllowed).
	spareOnce sync.Once
	spare     *ratelimit.Memory
}

func newFailGate() *failGate { return &failGate{until: map[string]time.Time{}} }

// blocked is when addr may try again, if it is blocked at now.
func (g *failGate) blocked(addr string, now time.Time) (time.Time, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	t, ok := g.until[addr]
	if ok && !now.Before(t) {
		delete(g.until, addr)
		return time.Time{}, false
	}
	return t, ok
}

func (g *failGate) block(addr string, until, now time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.until) >= 10_000 { // bounded: drop the expired, else start over
		for a, t := range g.until {
			if !now.Before(t) {
				delete(g.until, a)
			}
		}
		if len(g.until) >= 10_000 {
			clear(g.until)
		}
	}
	g.until[addr] = until
}

// failureAllowed counts a failure of the client (a refused key, a wrong secret or signature)
// against key and reports whether it is within perMinute. The limiter failing (Redis down) does
// not let failures through unlimited, as it lets requests with valid credentials through (limit):
// they are counted in this instance instead, so a key or secret cannot be guessed at request speed
// while Redis is down. Per instance: n instances allow n times the limit, until Redis is back.
func (s *Server) failureAllowed(ctx context.Context, key string, perMinute int) ratelimit.Result {
	res, err := s.limiter.Allow(ctx, key, perMinute)
	if err == nil {
		return res
	}
	s.gate.spareOnce.Do(func() { s.gate.spare = ratelimit.NewMemory(s.now) })
	res, _ = s.gate.spare.Allow(ctx, key, perMinute) // in-process: never fails
	return res
}

// authGate answers 429 to a client address blocked for wrong secrets, before anything is read.
func (s *Server) authGate(c echo.Context) error {
	if until, ok := s.gate.blocked(ClientKey(c), s.now()); ok {
		return s.rateLimited(c, "authfail", until)
	}
	return nil
}

// authFailed counts a wrong secret or signature of the client address: refused (failure), or
// 429 once the address is over authFailuresPerMinute, which also blocks it (authGate).
func (s *Server) authFailed(c echo.Context, failure error) error {
	addr := ClientKey(c)
	res := s.failureAllowed(c.Request().Context(), "authfail:"+addr, authFailuresPerMinute)
	if res.Allowed {
		return failure
	}
	s.gate.block(addr, res.RetryAt, s.now())
	return s.rateLimited(c, "authfail", res.RetryAt)
}

// limitByIP limits public routes per client address.
func (s *Server) limitByIP(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if err := s.limit(c, "ip:"+ClientKey(c), s.cfg.PublicLimitPerMinute); err != nil {
			return err
		}
		return next(c)
	}
}

// ClientKey is who a client is for the per-address limits: its IPv4 address, or the /64 its IPv6
// address is in. A host picks any address of its /64 at will (privacy addresses, one per
// connection if it likes), so a limit per IPv6 address limited nothing: every request from a new
// address of the same network was a new client. A /64 is one subscriber's (one household, one
// phone), the unit providers assign.
func ClientKey(c echo.Context) string {
	ip := c.RealIP()
	a, err := netip.ParseAddr(ip)
	if err != nil {
		return ip
	}
	if a = a.Unmap(); a.Is4() {
		return a.String()
	}
	p, err := a.WithZone("").Prefix(64)
	if err != nil {
		return ip
	}
	return p.String()
}

// clientAddress is how the client's address is found: the connection's, or, with trusted
// proxies, the nearest X-Forwarded-For hop that is not one of them (walking from the connection
// back; a hop that does not parse ends the walk at the connection). Nothing is trusted by default,
// not even loopback or private ranges: anyone can send X-Forwarded-For.
func clientAddress(trusted []netip.Prefix) echo.IPExtractor {
	if len(trusted) == 0 {
		return echo.ExtractIPDirect()
	}
	opts := []echo.TrustOption{echo.TrustLoopback(false), echo.TrustLinkLocal(false), echo.TrustPrivateNet(false)}
	for _, p := range trusted {
		_, n, err := net.ParseCIDR(p.String())
		if err == nil {
			opts = append(opts, echo.TrustIPRange(n))
		}
	}
	return echo.ExtractIPFromXFFHeader(opts...)
}
