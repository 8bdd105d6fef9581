package transport

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/payledger/payledger/readmodels"
	"github.com/payledger/payledger/webhooks"
)

// EndpointStore is what the endpoint routes need of the webhook endpoints (readmodels.Endpoints).
type EndpointStore interface {
	Create(ctx context.Context, merchant, url string, events []string, secret string, now time.Time) (readmodels.Endpoint, error)
	List(ctx context.Context, merchant string) ([]readmodels.Endpoint, error)
	Get(ctx context.Context, merchant string, id uuid.UUID) (readmodels.Endpoint, error)
	Delete(ctx context.Context, merchant string, id uuid.UUID) error
	RotateSecret(ctx context.Context, merchant string, id uuid.UUID, secret string, now time.Time) (readmodels.Endpoint, time.Time, error)
	Signs(ctx context.Context, merchant string, id uuid.UUID, secret string, now time.Time) (bool, error)
	Record(ctx context.Context, events ...readmodels.NewEvent) error
	Attempts(ctx context.Context, merchant string, endpointID uuid.UUID, limit int) ([]readmodels.EndpointAttempt, error)
	Message(ctx context.Context, merchant string, endpointID, eventID uuid.UUID) (readmodels.EndpointMessage, error)
	CompleteMessage(ctx context.Context, a readmodels.EndpointAttempt, state string, next time.Time) error
	EventsAfter(ctx context.Context, merchant string, seq int64, limit int) ([]readmodels.StoredEvent, error)
	LastSeq(ctx context.Context, merchant string) (int64, error)
	LogEnd(ctx context.Context) (int64, error)
	PrunedThrough(ctx context.Context) (int64, error)
}

// EndpointSender sends one endpoint message now (webhooks.Dispatcher): manual redelivery.
type EndpointSender interface {
	SendEndpoint(ctx context.Context, m readmodels.EndpointMessage, kind string) readmodels.EndpointAttempt
}

var (
	_ EndpointStore  = (*readmodels.Endpoints)(nil)
	_ EndpointSender = (*webhooks.Dispatcher)(nil)
)

var (
	errEndpointMissing = NewError(http.StatusNotFound, "not_found", "Webhook endpoint not found")
)

// EndpointCreatesPerHour is how many webhook endpoints a wallet may create an hour. MaxEndpoints
// bounds the live endpoints only, and a deleted endpoint's row stays 30 days (its log stays), so a
// create/delete loop at the per-wallet admin rate kept up to about 13 million rows at once per
// wallet (300 pairs a minute for 30 days; wallets are free), each creation also resolving the
// URL's name. A merchant registers
// an endpoint per receiver and replaces one now and then, far below this.
const EndpointCreatesPerHour = 100

// maxEndpointURL bounds an endpoint's URL.
const maxEndpointURL = 2048

func (s *Server) endpointRoutes() {
	read := Policy{Access: KeyOrSession, Scope: "receipts:read"}
	s.handle(http.MethodPost, "/api/webhooks/endpoints", Policy{Access: Admin}, s.createEndpoint)
	s.handle(http.MethodGet, "/api/webhooks/endpoints", read, s.listEndpoints)
	s.handle(http.MethodDelete, "/api/webhooks/endpoints/:id", Policy{Access: Admin}, s.deleteEndpoint)
	s.handle(http.MethodPost, "/api/webhooks/endpoints/:id/test", Policy{Access: Admin}, s.testEndpoint)
	s.handle(http.MethodPost, "/api/webhooks/endpoints/:id/secret/rotate", Policy{Access: Admin}, s.rotateEndpointSecret)
	s.handle(http.MethodGet, "/api/webhooks/endpoints/:id/deliveries", read, s.endpointDeliveries)
	s.handle(http.MethodPost, "/api/webhooks/endpoints/:id/deliveries/:eventId/redeliver", Policy{Access: Admin}, s.redeliverEndpoint)
	s.handle(http.MethodGet, "/api/webhooks/stream", Policy{Access: Developer, Scope: "receipts:read"}, s.eventStream)
}

func endpointView(ep readmodels.Endpoint) map[string]any {
	return map[string]any{"id": ep.ID, "url": ep.URL, "events": ep.Events, "createdAt": ep.CreatedAt.UnixMilli()}
}

type endpointBody struct {
	URL    string   `json:"url"`
	Events []string `json:"events"`
}

// endpointEvents checks an endpoint's filter: "*" alone, or catalog types, each once.
func endpointEvents(events []string) ([]string, error) {
	if len(events) == 0 {
		return nil, InvalidInput(`events must list event types or be ["*"]`)
	}
	if len(events) > len(webhooks.EventTypes) {
		return nil, InvalidInput("events names a type twice or too many types")
	}
	seen := map[string]bool{}
	for _, e := range events {
		if e == "*" && len(events) == 1 {
			return events, nil
		}
		if !webhooks.KnownType(e) || seen[e] {
			return nil, InvalidInput("events: " + clip(e) + ` is not an event type (see the catalog), or is named twice; "*" stands alone`)
		}
		seen[e] = true
	}
	return events, nil
}

func (s *Server) createEndpoint(c echo.Context) error {
	var b endpointBody
	if err := DecodeJSON(c, &b); err != nil {
		return err
	}
	if b.URL == "" || len(b.URL) > maxEndpointURL {
		return InvalidInput("url is required, at most 2048 characters")
	}
	if err := s.checkWebhookURL("url", b.URL); err != nil {
		return err
	}
	events, err := endpointEvents(b.Events)
	if err != nil {
		return err
	}
	// Counted once the body is valid: bad input costs nothing.
	if err := s.limitEvery(c, "endpointcreate", "endpointcreate:"+merchantOf(c), EndpointCreatesPerHour, time.Hour); err != nil {
		return err
	}
	secret, err := webhooks.NewSecret()
	if err != nil {
		return err
	}
	ep, err := s.endpoints.Create(c.Request().Context(), merchantOf(c), b.URL, events, secret, s.now())
	if errors.Is(err, readmodels.ErrTooManyEndpoints) {
		return InvalidInput("a merchant has at most 20 webhook endpoints; delete one first")
	}
	if err != nil {
		return err
	}
	view := endpointView(ep)
	view["secret"] = secret // shown only here
	return c.JSON(http.StatusCreated, map[string]any{"endpoint": view})
}

func (s *Server) listEndpoints(c echo.Context) error {
	list, err := s.endpoints.List(c.Request().Context(), merchantOf(c))
	if err != nil {
		return err
	}
	out := make([]map[string]any, len(list))
	for i, ep := range list {
		out[i] = endpointView(ep)
	}
	return c.JSON(http.StatusOK, map[string]any{"endpoints": out})
}

// endpointID reads the :id of a route as one of the caller's endpoints (404 otherwise).
func (s *Server) endpointID(c echo.Context) (uuid.UUID, error) {
	id, err := uuid.Parse(c.Param("id"))
	if err != nil {
		return uuid.Nil, errEndpointMissing
	}
	return id, nil
}

func (s *Server) deleteEndpoint(c echo.Context) error {
	id, err := s.endpointID(c)
	if err != nil {
		return err
	}
	if err := noBody(c); err != nil {
		return err
	}
	err = s.endpoints.Delete(c.Request().Context(), merchantOf(c), id)
	if errors.Is(err, readmodels.ErrNotFound) {
		return errEndpointMissing
	}
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"ok": true})
}

// rotateEndpointSecret gives the endpoint a new secret, shown only here (as at creation); the old
// one also signs every delivery until previousSecretExpiresAt (readmodels.PreviousSecretLife),
// so the receiver has that long to switch. The body, if any, is an empty object.
func (s *Server) rotateEndpointSecret(c echo.Context) error {
	id, err := s.endpointID(c)
	if err != nil {
		return err
	}
	if err := noBody(c); err != nil { // no options yet: any field is refused, not silently ignored
		return err
	}
	secret, err := webhooks.NewSecret()
	if err != nil {
		return err
	}
	ep, expires, err := s.endpoints.RotateSecret(c.Request().Context(), merchantOf(c), id, secret, s.now())
	if errors.Is(err, readmodels.ErrNotFound) {
		return errEndpointMissing
	}
	if err != nil {
		return err
	}
	view := endpointView(ep)
	view["secret"] = secret // shown only here
	view["previousSecretExpiresAt"] = expires.UnixMilli()
	return c.JSON(http.StatusOK, map[string]any{"endpoint": view})
}

// TestEventsPerHour is how many webhook.test events a merchant may ask for an hour, all its
// endpoints together (a burst of as many, then one a minute): each is an event kept for the
// retention period and an outbound POST, and the route was bounded only by the per-wallet limit
// (600 a minute, about 26 million events a month per wallet). Per merchant, not per endpoint: a
// merchant deleting and creating endpoints would get a new per-endpoint bound each time. Testing
// every endpoint a merchant may have (readmodels.MaxEndpoints, 20) at once still fits.
const TestEventsPerHour = 60

// testEndpoint records a webhook.test event for this endpoint only; the dispatcher sends it as
// any other (its outcome shows in the endpoint's delivery log). Past TestEventsPerHour of the
// merchant: 429 rate_limited with resetAt and Retry-After, and nothing recorded.
func (s *Server) testEndpoint(c echo.Context) error {
	id, err := s.endpointID(c)
	if err != nil {
		return err
	}
	if err := noBody(c); err != nil {
		return err
	}
	ctx, merchant := c.Request().Context(), merchantOf(c)
	if _, err := s.endpoints.Get(ctx, merchant, id); errors.Is(err, readmodels.ErrNotFound) {
		return errEndpointMissing
	} else if err != nil {
		return err
	}
	// Counted once the endpoint is known to be the merchant's: unknown ids cost nothing.
	if err := s.limitEvery(c, "webhooktest", "webhooktest:"+merchant, TestEventsPerHour, time.Hour); err != nil {
		return err
	}
	now := s.now()
	key := "webhook-test:" + uuid.NewString()
	ev := readmodels.NewEvent{Key: key, Merchant: merchant, Type: webhooks.TypeTest, At: now, Endpoint: &id,
		Data: readmodels.WebhookTest{EndpointID: id.String(), Message: "This is a test event from payledger."}}
	if err := s.endpoints.Record(ctx, ev); err != nil {
		return err
	}
	return c.JSON(http.StatusAccepted, map[string]any{"ok": true, "type": webhooks.TypeTest})
}

func endpointAttemptView(a readmodels.EndpointAttempt) map[string]any {
	return map[string]any{"id": a.ID, "endpointId": a.EndpointID, "webhookId": "msg_" + a.EventID.String(), "eventId": a.EventID,
		"type": a.Type, "attemptedAt": a.AttemptedAt.UnixMilli(), "httpStatus": a.HTTPStatus, "latencyMs": a.LatencyMS,
		"error": nullable(a.Error), "kind": a.Kind, "succeeded": a.Error == ""}
}

func (s *Server) endpointDeliveries(c echo.Context) error {
	id, err := s.endpointID(c)
	if err != nil {
		return err
	}
	limit, err := intParam(c, "limit", 25, 1, 100)
	if err != nil {
		return err
	}
	list, err := s.endpoints.Attempts(c.Request().Context(), merchantOf(c), id, limit)
	if errors.Is(err, readmodels.ErrNotFound) {
		return errEndpointMissing
	}
	if err != nil {
		return err
	}
	out := make([]map[string]any, len(list))
	for i, a := range list {
		out[i] = endpointAttemptView(a)
	}
	return c.JSON(http.StatusOK, map[string]any{"deliveries": out})
}

// redeliverEndpoint sends an event to the endpoint again now, with its webhook-id, and records
// the attempt; a success closes the message (its automatic retries stop).
func (s *Server) redeliverEndpoint(c echo.Context) error {
	id, err := s.endpointID(c)
	if err != nil {
		return err
	}
	if err := noBody(c); err != nil {
		return err
	}
	eventID, err := uuid.Parse(c.Param("eventId"))
	if err != nil {
		return errEndpointMissing
	}
	ctx := c.Request().Context()
	m, err := s.endpoints.Message(ctx, merchantOf(c), id, eventID)
	if errors.Is(err, readmodels.ErrNotFound) || (err == nil && m.Deleted) {
		return errEndpointMissing
	}
	if err != nil {
		return err
	}
	// Counted once the message is known to be the merchant's: unknown ids cost nothing.
	if err := s.limitEvery(c, "redeliver", "redeliver:"+merchantOf(c), RedeliveriesPerHour, time.Hour); err != nil {
		return err
	}
	// The attempt does not end with the request: a caller who leaves (or a proxy that gives up)
	// cut it, and the log said connection_error for a receiver that may have been fine. The
	// dispatcher's client bounds it with its own timeout.
	a := s.endpointSender.SendEndpoint(context.WithoutCancel(ctx), m, "redeliver")
	state := readmodels.NotePending
	if a.Error == "" {
		state = readmodels.NoteDelivered
	}
	if err := s.endpoints.CompleteMessage(context.WithoutCancel(ctx), a, state, s.now()); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"ok": a.Error == "", "delivery": endpointAttemptView(a)})
}

// eventJSON is an event as the stream sends it: its webhook-id and the exact delivery body.
func eventJSON(e readmodels.StoredEvent) ([]byte, error) {
	body, err := webhooks.StandardBody(e.Type, e.OccurredAt, e.Data)
	if err != nil {
		return nil, err
	}
	return json.Marshal(map[string]any{"webhookId": "msg_" + e.ID.String(), "type": e.Type, "body": json.RawMessage(body)})
}
