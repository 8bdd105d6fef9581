package transport

import (
	"errors"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/payledger/payledger/transport/ratelimit"
)

// DefaultSubscriptionCreatesPerHour is how many subscription creations one client address sends
// an hour when Config.SubscriptionCreatesPerHour is zero.
const DefaultSubscriptionCreatesPerHour = 20

// limitCreations counts a POST /api/subscriptions/create of the client address (ClientAddress:
// an IPv6 /64, its /56 and its /48, or an IPv4 address and its /24 at 16 times: WideBuckets) against SubscriptionCreatesPerHour, before the request is
// read: refused creations count too. The route is public and each subscription it creates is
// charged, and fails, every period with a webhook to the plan's merchant: bounded only by the
// public limit, one address created 3,600 an hour to any merchant's plans.
//
// Past the limit: 429 rate_limited with resetAt, Retry-After and the X-RateLimit-* headers, as
// every limit, counted for every instance (limitEveryAll: Redis, else the database). A limiter
// that fails does not let creations through unlimited, as it lets requests through (limit): they
// are counted in this instance, as failures are (failureAllowed).
func (s *Server) limitCreations(c echo.Context) error {
	n := s.cfg.SubscriptionCreatesPerHour
	if n <= 0 {
		n = DefaultSubscriptionCreatesPerHour
	}
	_, err := s.limitEveryAll(c, "subcreate", time.Hour, ClientAddress(c).WideBuckets("subcreate", n)...)
	return err
}

// limitEvery counts the request against key, n per period (limitEveryAll: never unlimited).
func (s *Server) limitEvery(c echo.Context, kind, key string, n int, period time.Duration) error {
	_, err := s.limitEveryAll(c, kind, period, ratelimit.Bucket{Key: key, Limit: n})
	return err
}

// errNoHourLimiter stands for a limiter that cannot count over a period (a test's): counted in this
// instance instead, as when the limiter fails.
var errNoHourLimiter = errors.New("the limiter does not count per hour")
