package transport

// The middleware every request passes through (New installs it): CORS preflights, no-store,
// the correlation id and the request's logger, panics as 500s, the access log.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/rs/zerolog"
)

// preflight answers CORS preflights (OPTIONS) for every path before routing (spec, point 6:
// origin any; methods GET, POST, OPTIONS, PUT, DELETE; any headers).
func preflight(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if c.Request().Method != http.MethodOptions {
			return next(c)
		}
		h := c.Response().Header()
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS, PUT, DELETE")
		allow := c.Request().Header.Get("Access-Control-Request-Headers")
		if allow == "" {
			allow = "*"
		}
		h.Set("Access-Control-Allow-Headers", allow)
		h.Set("Access-Control-Max-Age", "600")
		if strings.HasPrefix(c.Request().URL.Path, "/api/") {
			h.Set("Cache-Control", "no-store")
		}
		return c.NoContent(http.StatusNoContent)
	}
}

// noStore marks every response uncacheable (spec, point 6: only the static build chunks may be
// cached; everything else is not): statuses and receipts change, and an edge that kept /healthz
// would report a dead origin healthy. The content-hashed assets' handlers replace it with their
// long-term caching when they serve a file (a miss under their prefix stays no-store).
func noStore(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		c.Response().Header().Set("Cache-Control", "no-store")
		return next(c)
	}
}

// correlation takes the request's correlation id (or makes one), echoes it on the response and
// puts a logger carrying it into the request context.
func correlation(base zerolog.Logger) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			id := c.Request().Header.Get(CorrelationHeader)
			if !validCorrelationID(id) {
				id = newID()
			}
			c.Response().Header().Set(CorrelationHeader, id)
			log := base.With().Str("correlation_id", id).Logger()
			ctx := log.WithContext(withCorrelationID(c.Request().Context(), id))
			c.SetRequest(c.Request().WithContext(ctx))
			return next(c)
		}
	}
}

func validCorrelationID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for _, r := range id {
		if r < 0x21 || r > 0x7e {
			return false
		}
	}
	return true
}

func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

type correlationKey struct{}

func withCorrelationID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, correlationKey{}, id)
}

// CorrelationID returns the correlation id of the request that ctx belongs to.
func CorrelationID(ctx context.Context) string {
	id, _ := ctx.Value(correlationKey{}).(string)
	return id
}

// recoverPanics turns a panic into the 500 envelope; the stack goes to the log, never the body.
func recoverPanics(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) (err error) {
		defer func() {
			if r := recover(); r != nil {
				if r == http.ErrAbortHandler {
					panic(r)
				}
				zerolog.Ctx(c.Request().Context()).Error().
					Str("panic", fmt.Sprint(r)).Bytes("stack", debug.Stack()).Msg("handler panicked")
				err = NewError(http.StatusInternalServerError, "failed", "Internal server error")
			}
		}()
		return next(c)
	}
}

func (s *Server) accessLog(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		err := next(c)
		if err != nil {
			c.Error(err) // write the envelope now so the logged status is the one sent
		}
		took := time.Since(start)
		s.metrics.observe(c.Path(), c.Request().Method, c.Response().Status, took)
		zerolog.Ctx(c.Request().Context()).Info().
			Str("method", c.Request().Method).Str("route", c.Path()).Str("path", c.Request().URL.Path).Str("client", c.RealIP()).
			Int("status", c.Response().Status).Dur("took", took).Msg("request")
		return nil
	}
}
