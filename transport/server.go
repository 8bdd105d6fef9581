// Package transport is the HTTP surface: echo routes, middleware, the error envelope and (in
// later parts) the API handlers and webhook delivery.
package transport

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"github.com/rs/zerolog"
)

// MaxBodyBytes is the largest request body accepted.
const MaxBodyBytes = 1 << 20

// CorrelationHeader carries the request's correlation id in and out.
const CorrelationHeader = "X-Correlation-Id"

// Pinger reports whether the datastore answers.
type Pinger interface {
	Ping(ctx context.Context) error
}

// Deps are what the HTTP layer needs.
type Deps struct {
	Log zerolog.Logger
	DB  Pinger
}

// New returns the echo instance with middleware and every route registered.
func New(d Deps) (*echo.Echo, error) {
	if d.DB == nil {
		return nil, fmt.Errorf("transport: a datastore pinger is required")
	}
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = errorHandler
	e.Server.ReadHeaderTimeout = 10 * time.Second
	e.Server.IdleTimeout = 2 * time.Minute
	e.Use(correlation(d.Log), accessLog, recoverPanics)
	e.Use(middleware.BodyLimit(fmt.Sprintf("%dB", MaxBodyBytes)))
	e.GET("/healthz", health(d.DB))
	return e, nil
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

func accessLog(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		err := next(c)
		if err != nil {
			c.Error(err) // write the envelope now so the logged status is the one sent
		}
		zerolog.Ctx(c.Request().Context()).Info().
			Str("method", c.Request().Method).Str("route", c.Path()).Str("path", c.Request().URL.Path).
			Int("status", c.Response().Status).Dur("took", time.Since(start)).Msg("request")
		return nil
	}
}

func health(db Pinger) echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx, cancel := context.WithTimeout(c.Request().Context(), time.Second)
		defer cancel()
		status := "ok"
		if err := db.Ping(ctx); err != nil {
			status = "degraded"
			zerolog.Ctx(c.Request().Context()).Warn().Err(err).Msg("datastore does not answer")
		}
		return c.JSON(http.StatusOK, map[string]string{"status": status})
	}
}
