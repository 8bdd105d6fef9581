package transport

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/payledger/payledger/transport/ratelimit"
)

// DefaultSubscriptionCreatesPerHour is how many subscription creations one client address sends
// an hour when Config.SubscriptionCreatesPerHour is zero.
const DefaultSubscriptionCreatesPerHour = 20

// hourLimiter counts requests over any period (an hour): the service's limiters do
// (ratelimit.Memory, and ratelimit.Redis when REDIS_URL is set); the Limiter the routes share
// counts per minute only.
type hourLimiter interface {
	AllowEvery(ctx context.Context, key string, n int, period time.Duration) (ratelimit.Result, error)
}

var (
	_ hourLimiter = (*ratelimit.Memory)(nil)
	_ hourLimiter = (*ratelimit.Redis)(nil)
)

// limitCreations counts a POST /api/subscriptions/create of the client address (ClientKey; an
// IPv6 /64 and its /56, ratelimit.WiderMultiple) against SubscriptionCreatesPerHour, before the
// request is read: refused creations count too. The route is public and each subscription it
// creates is charged, and fails, every period with a webhook to the plan's merchant: bounded only
// by the public limit, one address created 3,600 an hour to any merchant's plans.
//
// Past the limit: 429 rate_limited with resetAt, Retry-After and the X-RateLimit-* headers, as
// every limit. A limiter that fails (Redis down) does not let creations through unlimited, as it
// lets requests through (limit): they are counted in this instance, as failures are
// (failureAllowed).
func (s *Server) limitCreations(c echo.Context) error {
	n := s.cfg.SubscriptionCreatesPerHour
	if n <= 0 {
		n = DefaultSubscriptionCreatesPerHour
	}
	return s.limitEvery(c, "subcreate", "subcreate:"+ClientKey(c), n, time.Hour)
}

// limitEvery counts the request against key (n per period, a burst of n; the kind names the
// limit in the metrics): past it, 429 rate_limited with resetAt, Retry-After and the
// X-RateLimit-* headers. A limiter that fails (Redis down), or cannot count over period, does
// not let the requests through unlimited, as limit does for the per-minute limits: they are
// counted in this instance, as failures are (failureAllowed). Per instance: n instances allow n
// times the bound until Redis is back.
func (s *Server) limitEvery(c echo.Context, kind, key string, n int, period time.Duration) error {
	ctx := c.Request().Context()
	res, err := ratelimit.Result{}, errNoHourLimiter
	if l, ok := s.limiter.(hourLimiter); ok {
		res, err = l.AllowEvery(ctx, key, n, period)
	}
	if err != nil {
		s.gate.spareOnce.Do(func() { s.gate.spare = ratelimit.NewMemory(s.now) })
		res, _ = s.gate.spare.AllowEvery(ctx, key, n, period) // in-process: never fails
	}
	h := c.Response().Header()
	// A per-minute limit set its headers already: these replace them when this limit is the one
	// that leaves fewer requests.
	if left, err := strconv.Atoi(h.Get("X-RateLimit-Remaining")); err != nil || res.Remaining <= left || !res.Allowed {
		h.Set("X-RateLimit-Limit", strconv.Itoa(res.Limit))
		h.Set("X-RateLimit-Remaining", strconv.Itoa(res.Remaining))
		if res.Allowed {
			h.Set("X-RateLimit-Reset", strconv.FormatInt(res.ResetAt.UnixMilli(), 10))
		}
	}
	if !res.Allowed {
		return s.rateLimited(c, kind, res.RetryAt)
	}
	return nil
}

// errNoHourLimiter stands for a limiter that cannot count over a period (a test's): counted in this
// instance instead, as when the limiter fails.
var errNoHourLimiter = errors.New("the limiter does not count per hour")
