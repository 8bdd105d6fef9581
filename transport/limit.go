package transport

import (
	"context"
	"net/http"
	"strconv"
	"strings"

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
		s.metrics.limited.WithLabelValues(kind).Inc()
		reset := res.RetryAt.UnixMilli()
		h.Set("X-RateLimit-Reset", strconv.FormatInt(reset, 10))
		h.Set("Retry-After", strconv.FormatInt(max(1, (reset-s.now().UnixMilli()+999)/1000), 10))
		return &Error{Status: http.StatusTooManyRequests, Code: "rate_limited", Message: "Rate limit exceeded",
			Extra: map[string]any{"resetAt": reset}}
	}
	h.Set("X-RateLimit-Reset", strconv.FormatInt(res.ResetAt.UnixMilli(), 10))
	return nil
}

// limitByIP limits public routes per client address.
func (s *Server) limitByIP(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if err := s.limit(c, "ip:"+c.RealIP(), s.cfg.PublicLimitPerMinute); err != nil {
			return err
		}
		return next(c)
	}
}
