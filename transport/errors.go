package transport

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/inventory"
	"github.com/payledger/payledger/domain/pricing"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/domain/subscription"
	"github.com/payledger/payledger/readmodels"
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
// place where command refusals, domain and read-model errors and framework errors become the
// spec's codes and statuses; everything else is an internal error (true).
func toAPIError(err error) (*Error, bool) {
	var apiErr *Error
	if errors.As(err, &apiErr) {
		return apiErr, false
	}
	var refusal *commands.Refusal
	if errors.As(err, &refusal) {
		return NewError(kindStatus[refusal.Kind], refusal.Code, refusal.Message), false
	}
	if unavailable(err) {
		return errUnavailable, false
	}
	for _, m := range domainErrors {
		if errors.Is(err, m.err) {
			msg := m.message
			if msg == "" {
				msg = err.Error()
			}
			apiErr := NewError(m.status, m.code, msg)
			if l, ok := errors.AsType[resetter](err); ok {
				apiErr.Extra = map[string]any{"resetAt": l.ResetAt()} // the spec's rate_limited field
			}
			return apiErr, false
		}
	}
	var he *echo.HTTPError
	if errors.As(err, &he) {
		return httpError(he), he.Code >= 500
	}
	return NewError(http.StatusInternalServerError, "failed", "Internal server error"), true
}

// resetter is a refusal by a bound that lifts at ResetAt (Unix ms): receipt.Limited.
type resetter interface {
	error
	ResetAt() int64
}

// kindStatus is the HTTP status of each kind of command refusal.
var kindStatus = map[commands.Kind]int{
	commands.KindInvalid: http.StatusBadRequest, commands.KindNotFound: http.StatusNotFound,
	commands.KindForbidden: http.StatusForbidden, commands.KindConflict: http.StatusConflict,
	commands.KindUnavailable: http.StatusServiceUnavailable, commands.KindUpstream: http.StatusBadGateway,
}

// domainErrors are the domain and read-model sentinels with their API code; an empty message
// passes the error's own text (it names the rule that was broken).
var domainErrors = []struct {
	err     error
	status  int
	code    string
	message string
}{
	{commands.ErrTelemetryLimited, http.StatusTooManyRequests, "rate_limited", "At most 20 telemetry reports per receipt per hour"},
	{commands.ErrHintsLimited, http.StatusTooManyRequests, "rate_limited", "At most 20 payment reports per receipt per hour"},
	// Exhausted before Limited: each is its Limited error (errors.Is), the first row that matches wins.
	// A lifetime bound never lifts: no resetAt to back off until, so a business precondition not
	// met (403), where an hour's bound is 429 with resetAt.
	{receipt.ErrQuotesExhausted, http.StatusForbidden, "forbidden", fmt.Sprintf("At most %d quotes per receipt", receipt.MaxQuotes)},
	{receipt.ErrQuotesLimited, http.StatusTooManyRequests, "rate_limited", fmt.Sprintf("At most %d quotes per receipt per hour", receipt.MaxQuotesPerHour)},
	{receipt.ErrOnrampExhausted, http.StatusForbidden, "forbidden", fmt.Sprintf("At most %d card or bank payment sessions per receipt", receipt.MaxOnrampStarts)},
	{receipt.ErrOnrampLimited, http.StatusTooManyRequests, "rate_limited", fmt.Sprintf("At most %d card or bank payment sessions per receipt per hour", receipt.MaxOnrampStartsPerHour)},
	{commands.ErrUnchargedLimited, http.StatusTooManyRequests, "rate_limited", fmt.Sprintf("The plan's merchant has %d new subscriptions not charged yet within the hour; try again after resetAt", commands.MaxUnchargedSubscriptionsPerHour)},
	{commands.ErrContended, http.StatusConflict, "conflict", "The receipt is being changed by other requests; nothing was changed, retry"},
	{receipt.ErrNotFound, http.StatusNotFound, "not_found", "Receipt not found"},
	{receipt.ErrExists, http.StatusConflict, "conflict", "A receipt with this id already exists"},
	{receipt.ErrState, http.StatusBadRequest, "invalid_input", ""},
	{receipt.ErrAmount, http.StatusBadRequest, "invalid_input", ""},
	{receipt.ErrTotal, http.StatusBadRequest, "invalid_input", ""},
	{inventory.ErrInvalid, http.StatusBadRequest, "invalid_input", ""},
	{pricing.ErrInvalid, http.StatusBadRequest, "invalid_input", ""},
	{readmodels.ErrBadCursor, http.StatusBadRequest, "invalid_input", "cursor is not valid"},
	{readmodels.ErrSlugTaken, http.StatusConflict, "conflict", "This slug is taken"},
	{subscription.ErrNotFound, http.StatusNotFound, "not_found", "Subscription not found"},
	{subscription.ErrNotCustomer, http.StatusForbidden, "forbidden", "Only the subscribing customer may cancel"},
	{subscription.ErrCancelled, http.StatusConflict, "conflict", ""},
	{subscription.ErrAlreadyCharged, http.StatusConflict, "conflict", ""},
	{subscription.ErrNotDue, http.StatusConflict, "conflict", ""},
	{subscription.ErrEnded, http.StatusConflict, "conflict", ""},
	{subscription.ErrInvalid, http.StatusBadRequest, "invalid_input", ""},
	{readmodels.ErrNotOwner, http.StatusForbidden, "forbidden", "The signed-in wallet does not own this plan"},
	{readmodels.ErrNotFound, http.StatusNotFound, "not_found", "Not found"},
}

// httpError maps echo's own errors (routing, body limit, binding).
func httpError(he *echo.HTTPError) *Error {
	msg := http.StatusText(he.Code)
	if m, ok := he.Message.(string); ok && m != "" {
		msg = m
	}
	switch he.Code {
	case http.StatusNotFound:
		return NewError(he.Code, "not_found", "Route not found")
	case http.StatusMethodNotAllowed:
		return NewError(he.Code, "method_not_allowed", "Method not allowed on this route")
	case http.StatusRequestEntityTooLarge:
		return NewError(he.Code, "payload_too_large", "Request body is larger than 1 MiB")
	case http.StatusBadRequest:
		return InvalidInput("Invalid request parameters: " + msg)
	case http.StatusUnsupportedMediaType:
		return NewError(he.Code, "invalid_input", "Request body must be application/json")
	}
	if he.Code < 500 {
		return NewError(he.Code, "invalid_input", msg)
	}
	return NewError(http.StatusInternalServerError, "failed", "Internal server error")
}

func errorHandler(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	apiErr, internal := toAPIError(err)
	if internal {
		zerolog.Ctx(c.Request().Context()).Error().Err(err).Str("path", c.Path()).Msg("internal error")
	}
	retryAfter(c, apiErr)
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

// retryAfter gives a 429 with resetAt its Retry-After (whole seconds, at least 1), unless the
// limiter set one: every bound that says when it lifts says it the same two ways.
func retryAfter(c echo.Context, apiErr *Error) {
	h := c.Response().Header()
	reset, ok := apiErr.Extra["resetAt"].(int64)
	if apiErr.Status != http.StatusTooManyRequests || !ok || h.Get("Retry-After") != "" {
		return
	}
	h.Set("Retry-After", strconv.FormatInt(max(1, (reset-time.Now().UnixMilli()+999)/1000), 10))
}
