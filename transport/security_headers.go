package transport

import "github.com/labstack/echo/v4"

// hstsValue keeps browsers on HTTPS for a year once they have seen a production answer.
const hstsValue = "max-age=31536000"

// securityHeaders sets the headers every answer carries (DESIGN 10), before routing, so that
// preflights, 404s and errors carry them too: nosniff keeps a browser from reading a JSON or CSV
// answer as HTML or script; production adds HSTS (development serves plain HTTP on loopback).
func securityHeaders(production bool) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			h := c.Response().Header()
			h.Set("X-Content-Type-Options", "nosniff")
			if production {
				h.Set("Strict-Transport-Security", hstsValue)
			}
			return next(c)
		}
	}
}
