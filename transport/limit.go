package transport

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/readmodels"
	"github.com/payledger/payledger/transport/ratelimit"
)

// Limiter counts requests against a per-minute limit. The service's limiters
// (ratelimit.Memory, ratelimit.Redis) are also bucketLimiters.
type Limiter interface {
	Allow(ctx context.Context, key string, perMinute int) (ratelimit.Result, error)
}

// bucketLimiter counts a request in several buckets at once (a client address's /64, /56 and
// /48), in all or in none, over any period (an hour): the service's limiters do.
type bucketLimiter interface {
	AllowAll(ctx context.Context, period time.Duration, buckets ...ratelimit.Bucket) (ratelimit.Result, error)
}

var (
	_ bucketLimiter = (*ratelimit.Memory)(nil)
	_ bucketLimiter = (*ratelimit.Redis)(nil)
	_ bucketLimiter = (*sharedHours)(nil)
	_ HourlyStore   = (*readmodels.HourlyBounds)(nil)
)

// HourlyStore counts requests over periods longer than a minute (the hourly bounds) for every
// instance on the database (readmodels.HourlyBounds, migration 056).
type HourlyStore interface {
	// Take counts one request in every bound over period, in all or in none: each bound's count
	// in order, and whether the request was counted.
	Take(ctx context.Context, period time.Duration, bounds []readmodels.Bound) ([]readmodels.BoundCount, bool, error)
}

// SharedHours is limiter l with the bounds over more than a minute (limitEveryAll: key, endpoint
// and plan creations, test events, redeliveries, subscription creations and split deployments per
// address) counted for every instance: by Redis while it answers (l a ratelimit.Redis), else in
// the database (store). Without Redis, or while it failed, each instance counted them on its own
// (ratelimit.Memory, the spare), and n instances allowed n times each bound. The per-minute limits
// stay l's: the orders' hot path pays no database round trip for a limiter. A store that fails
// answers its error, and limitEveryAll counts in this instance (the spare) until it is back.
func SharedHours(l Limiter, store HourlyStore) Limiter { return &sharedHours{Limiter: l, store: store} }

type sharedHours struct {
	Limiter
	store HourlyStore
}

func (h *sharedHours) AllowAll(ctx context.Context, period time.Duration, buckets ...ratelimit.Bucket) (ratelimit.Result, error) {
	if len(buckets) == 0 {
		return ratelimit.Result{}, errNoBuckets
	}
	if period <= time.Minute {
		if l, ok := h.Limiter.(bucketLimiter); ok {
			return l.AllowAll(ctx, period, buckets...)
		}
		if period != time.Minute {
			return ratelimit.Result{}, errNoHourLimiter
		}
		return h.Limiter.Allow(ctx, buckets[0].Key, buckets[0].Limit)
	}
	if r, ok := h.Limiter.(*ratelimit.Redis); ok {
		if res, err := r.AllowAll(ctx, period, buckets...); err == nil {
			return res, nil
		}
	}
	bounds := make([]readmodels.Bound, len(buckets))
	for i, b := range buckets {
		bounds[i] = readmodels.Bound{Key: b.Key, Limit: b.Limit}
	}
	counts, counted, err := h.store.Take(ctx, period, bounds)
	if err != nil {
		return ratelimit.Result{}, err
	}
	return boundsResult(counts, counted), nil
}

// boundsResult is the store's answer as the limiters give theirs (ratelimit.Memory.AllowAll): the
// first bucket that refused, else the one with the fewest places left (the first of equals).
func boundsResult(counts []readmodels.BoundCount, counted bool) ratelimit.Result {
	var out ratelimit.Result
	for i, c := range counts {
		res := ratelimit.Result{Allowed: c.Allowed, Limit: c.Limit, Remaining: c.Remaining, ResetAt: c.ResetAt, Key: c.Key}
		if !c.Allowed {
			res.RetryAt = c.RetryAt
			return res
		}
		if i == 0 || res.Remaining < out.Remaining {
			out = res
		}
	}
	out.Allowed = counted // every bucket had room
	return out
}

// errNoBuckets: a limiter was given nothing to count.
var errNoBuckets = errors.New("rate limit: no bucket to count")

// allowAll counts the request in every bucket over period by the service's limiter. A limiter
// that counts one key a minute only (a test's) counts the first bucket, over a minute; over
// another period it answers errNoHourLimiter (the callers count in this instance instead).
func (s *Server) allowAll(ctx context.Context, period time.Duration, buckets ...ratelimit.Bucket) (ratelimit.Result, error) {
	if l, ok := s.limiter.(bucketLimiter); ok {
		return l.AllowAll(ctx, period, buckets...)
	}
	if period != time.Minute {
		return ratelimit.Result{}, errNoHourLimiter
	}
	return s.limiter.Allow(ctx, buckets[0].Key, buckets[0].Limit)
}

// spare is the in-process limiter that counts what must stay bounded while the configured
// limiter fails (Redis down), made at its first use.
func (s *Server) spare() *ratelimit.Memory {
	s.gate.spareOnce.Do(func() { s.gate.spare = ratelimit.NewMemory(s.now) })
	return s.gate.spare
}

// limit counts the request against key (limitAll).
func (s *Server) limit(c echo.Context, key string, perMinute int) error {
	kind, _, _ := strings.Cut(key, ":")
	return s.limitAll(c, kind, ratelimit.Bucket{Key: key, Limit: perMinute})
}

// limitAll counts the request in every bucket (a minute each); over a limit it answers 429 with
// resetAt. Every limited response carries the X-RateLimit-* headers. A limiter that fails (Redis
// down) lets the request through: an outage of the limiter must not take the API down with it.
func (s *Server) limitAll(c echo.Context, kind string, buckets ...ratelimit.Bucket) error {
	res, err := s.allowAll(c.Request().Context(), time.Minute, buckets...)
	if err != nil {
		zerolog.Ctx(c.Request().Context()).Warn().Err(err).Msg("rate limiter unavailable; request let through")
		return nil
	}
	h := c.Response().Header()
	h.Set("X-RateLimit-Limit", strconv.Itoa(res.Limit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(res.Remaining))
	if !res.Allowed {
		return s.rateLimited(c, kind, res.RetryAt)
	}
	h.Set("X-RateLimit-Reset", strconv.FormatInt(res.ResetAt.UnixMilli(), 10))
	return nil
}

// limitEveryAll counts the request in every bucket over period (the kind names the limit in the
// metrics): past one, 429 rate_limited with resetAt, Retry-After and the X-RateLimit-* headers.
// The service's limiter (SharedHours, as serve builds it) counts them for every instance: in Redis
// while it answers, else in the database. A limiter that fails (the database too), or cannot
// count over period (a test's), does not let the requests through unlimited, as limitAll does for
// the per-minute limits: they are counted in this instance, as failures are (failureAllowed), n
// instances allowing n times the bound until it is back. It answers the count too, for the
// callers that tell which bucket refused.
func (s *Server) limitEveryAll(c echo.Context, kind string, period time.Duration, buckets ...ratelimit.Bucket) (ratelimit.Result, error) {
	ctx := c.Request().Context()
	res, err := s.allowAll(ctx, period, buckets...)
	if err != nil {
		res, _ = s.spare().AllowAll(ctx, period, buckets...) // in-process: never fails
	}
	s.limitHeaders(c, res)
	if !res.Allowed {
		return res, s.rateLimited(c, kind, res.RetryAt)
	}
	return res, nil
}

// limitHeaders sets the X-RateLimit-* headers of a count that is not the request's first: a limit
// counted before set its headers already, and these replace them when this count is the one that
// leaves fewer requests, or refused.
func (s *Server) limitHeaders(c echo.Context, res ratelimit.Result) {
	h := c.Response().Header()
	if left, err := strconv.Atoi(h.Get("X-RateLimit-Remaining")); err == nil && res.Remaining > left && res.Allowed {
		return
	}
	h.Set("X-RateLimit-Limit", strconv.Itoa(res.Limit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(res.Remaining))
	if res.Allowed {
		h.Set("X-RateLimit-Reset", strconv.FormatInt(res.ResetAt.UnixMilli(), 10))
	}
}

// rateLimited is the 429 answer, with the moment the client may try again.
func (s *Server) rateLimited(c echo.Context, kind string, retryAt time.Time) *Error {
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

// failureAllowed counts a failure of the client at addr (a refused key, a wrong secret or
// signature) against perMinute of kind (its /64, /56 and /48, or its IPv4 address and its /24 at
// 16 times: ratelimit.Address.WideBuckets) and answers the count. The limiter failing (Redis down) does not let failures through unlimited, as
// it lets requests with valid credentials through (limitAll): they are counted in this instance
// instead, so a key or secret cannot be guessed at request speed while Redis is down. Per
// instance: n instances allow n times the limit, until Redis is back.
func (s *Server) failureAllowed(ctx context.Context, kind string, addr ratelimit.Address, perMinute int) ratelimit.Result {
	buckets := addr.WideBuckets(kind, perMinute)
	res, err := s.allowAll(ctx, time.Minute, buckets...)
	if err == nil {
		return res
	}
	res, _ = s.spare().AllowAll(ctx, time.Minute, buckets...) // in-process: never fails
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
	addr := ClientAddress(c)
	res := s.failureAllowed(c.Request().Context(), "authfail", addr, authFailuresPerMinute)
	if res.Allowed {
		return failure
	}
	s.gate.block(addr.Key, res.RetryAt, s.now())
	return s.rateLimited(c, "authfail", res.RetryAt)
}

// limitByIP limits public routes per client address.
func (s *Server) limitByIP(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if err := s.limitAll(c, "ip", ClientAddress(c).Buckets("ip", s.cfg.PublicLimitPerMinute)...); err != nil {
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
func ClientKey(c echo.Context) string { return ClientAddress(c).Key }

// ClientAddress is the client as the per-address limits and slots count it: ClientKey, and for an
// IPv6 client the /56 and /48 around its /64 (ratelimit.NewAddress), built here from the address
// itself. A per-address limit counts ClientAddress(c).Buckets(kind, n).
func ClientAddress(c echo.Context) ratelimit.Address {
	ip := c.RealIP()
	a, err := netip.ParseAddr(ip)
	if err != nil {
		return ratelimit.UnparsedAddress(ip)
	}
	return ratelimit.NewAddress(a)
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
