package transport

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/commands"
)

// Error is an API error: it is written as the spec's envelope {"error": Code, "message":
// Message} plus Extra fields, with HTTP status Status.
type Error struct {
	Status  int
	Code    string
	Message string
	Extra   map[string]any
}

func (e *Error) Error() string { return fmt.Sprintf("%d %s: %s", e.Status, e.Code, e.Message) }

// NewError returns an API error.
func NewError(status int, code, message string) *Error {
	return &Error{Status: status, Code: code, Message: message}
}

// InvalidInput is the 400 answer for a request that breaks a rule; message says which.
func InvalidInput(message string) *Error {
	return NewError(http.StatusBadRequest, "invalid_input", message)
}

// body renders the envelope.
func (e *Error) body() map[string]any {
	b := make(map[string]any, 2+len(e.Extra))
	for k, v := range e.Extra {
		b[k] = v
	}
	b["error"] = e.Code
	if e.Message != "" {
		b["message"] = e.Message
	}
	return b
}

// toAPIError maps any error a handler or middleware returned onto the envelope. It is the one
// place where framework errors become API codes.
func toAPIError(err error) (*Error, bool) {
	var apiErr *Error
	if errors.As(err, &apiErr) {
		return apiErr, false
	}
	if unavailable(err) {
		return errUnavailable, false
	}
	if errors.Is(err, commands.ErrContended) {
		return NewError(http.StatusConflict, "conflict", "The receipt is being changed by other requests; nothing was changed, retry"), false
	}
	var he *echo.HTTPError
	if errors.As(err, &he) {
		msg := http.StatusText(he.Code)
		if m, ok := he.Message.(string); ok && m != "" {
			msg = m
		}
		switch he.Code {
		case http.StatusNotFound:
			return NewError(he.Code, "not_found", "Route not found"), false
		case http.StatusMethodNotAllowed:
			return NewError(he.Code, "method_not_allowed", "Method not allowed on this route"), false
		case http.StatusRequestEntityTooLarge:
			return NewError(he.Code, "payload_too_large", "Request body is larger than 1 MiB"), false
		case http.StatusBadRequest:
			return InvalidInput("Invalid request parameters: " + msg), false
		case http.StatusUnsupportedMediaType:
			return NewError(he.Code, "invalid_input", "Request body must be application/json"), false
		}
		if he.Code < 500 {
			return NewError(he.Code, "invalid_input", msg), false
		}
	}
	return NewError(http.StatusInternalServerError, "failed", "Internal server error"), true
}

func errorHandler(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	apiErr, internal := toAPIError(err)
	if internal {
		zerolog.Ctx(c.Request().Context()).Error().Err(err).Str("path", c.Path()).Msg("internal error")
	}
	var werr error
	if c.Request().Method == http.MethodHead {
		werr = c.NoContent(apiErr.Status)
	} else {
		werr = c.JSON(apiErr.Status, apiErr.body())
	}
	if werr != nil {
		zerolog.Ctx(c.Request().Context()).Warn().Err(werr).Msg("write error response")
	}
}
