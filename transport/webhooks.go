package transport

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/payledger/payledger/readmodels"
)

// Outbox is the delivery log's view of the webhook outbox.
type Outbox interface {
	Deliveries(ctx context.Context, merchant, receiptID string, limit int, cursor string) ([]readmodels.Attempt, string, error)
	NotificationOfDelivery(ctx context.Context, id uuid.UUID) (readmodels.Claimed, error)
}

// WebhookSender is what the HTTP layer needs of the dispatcher (webhooks.Dispatcher).
type WebhookSender interface {
	ReconcileMarked(ctx context.Context, all bool) (tried, delivered int, err error)
	Redeliver(ctx context.Context, c readmodels.Claimed) (readmodels.Attempt, error)
}

// deliveryView renders a delivery attempt for the delivery log.
func deliveryView(a readmodels.Attempt) map[string]any {
	return map[string]any{
		"id": a.ID, "receiptId": a.ReceiptID, "deliveryId": a.DeliveryID, "idempotencyKey": a.IdempotencyKey, "status": a.StatusSent,
		"url": a.URL, "attemptedAt": a.AttemptedAt.UnixMilli(), "httpStatus": a.HTTPStatus, "latencyMs": a.LatencyMS,
		"error": nullable(a.Error), "kind": a.Kind, "succeeded": a.Error == "",
	}
}

func (s *Server) listDeliveries(c echo.Context) error {
	p, _ := PrincipalFrom(c)
	limit, err := intParam(c, "limit", 25, 1, 100)
	if err != nil {
		return err
	}
	list, next, err := s.outbox.Deliveries(c.Request().Context(), p.Wallet, c.QueryParam("receiptId"), limit, c.QueryParam("cursor"))
	if errors.Is(err, readmodels.ErrBadCursor) {
		return InvalidInput("cursor is not one this API issued")
	}
	if err != nil {
		return err
	}
	out := make([]map[string]any, len(list))
	for i, a := range list {
		out[i] = deliveryView(a)
	}
	return c.JSON(http.StatusOK, map[string]any{"deliveries": out, "next": nullable(next)})
}

// RedeliveriesPerHour is how many manual redeliveries a wallet may ask for an hour, of receipt
// webhooks and endpoint messages together. Each is an outbound POST and an attempt row kept 30
// days after its notification closes; bounded only by the per-wallet admin rate (600 a minute),
// a wallet (any wallet signs in) could record about 26 million a month, as webhook.test events
// could before TestEventsPerHour. The automatic retries and the reconciliation redeliver the
// rest; a merchant checking a fixed receiver needs a few.
const RedeliveriesPerHour = 100

func (s *Server) redeliver(c echo.Context) error {
	sess, _ := SessionFrom(c)
	notFound := NewError(http.StatusNotFound, "not_found", "Delivery not found")
	id, err := uuid.Parse(c.Param("id"))
	if err != nil {
		return notFound
	}
	if err := noBody(c); err != nil {
		return err
	}
	n, err := s.outbox.NotificationOfDelivery(c.Request().Context(), id)
	if errors.Is(err, readmodels.ErrNotFound) || (err == nil && n.Merchant != sess.Wallet && !slices.Contains(sess.Roles, RoleAdmin)) {
		return notFound
	}
	if err != nil {
		return err
	}
	// Counted once the delivery is known to be the caller's: unknown ids cost nothing.
	if err := s.limitEvery(c, "redeliver", "redeliver:"+sess.Wallet, RedeliveriesPerHour, time.Hour); err != nil {
		return err
	}
	// As an endpoint's redelivery: the attempt and its recording do not end with the request. A
	// caller who left (or a proxy that gave up) cut the attempt, its recording failed on the ended
	// context, and a receiver that answered 200 left no trace: the notification stayed marked or
	// failed. The dispatcher's client bounds the attempt with its own timeout.
	a, err := s.webhooks.Redeliver(context.WithoutCancel(c.Request().Context()), n)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"ok": a.Error == "", "delivery": deliveryView(a)})
}
