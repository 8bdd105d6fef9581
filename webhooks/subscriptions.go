package webhooks

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/readmodels"
)

// Subscription charge events (docs/webhooks.md).
const (
	EventSubscriptionCharged      = "subscription.charged"
	EventSubscriptionChargeFailed = "subscription.charge_failed"
)

// SubscriptionOutbox is the sender's view of the subscription webhook outbox.
type SubscriptionOutbox interface {
	Claim(ctx context.Context, limit int, lease time.Duration) ([]readmodels.SubscriptionWebhook, error)
	Complete(ctx context.Context, id uuid.UUID, state string, status *int, errText string, next time.Time) error
	MerchantSigningKey(ctx context.Context, keys *readmodels.WebhookKeys, merchant string) (string, error)
}

// SubscriptionSender delivers subscription.charged and subscription.charge_failed to the
// merchant's shop webhookUrl, signed like receipt webhooks (X-Service-Signature: sha256= HMAC of
// the exact body with the merchant's API key; the X-Service-* headers), through the dispatcher's
// client (production: https and public addresses only). A failed attempt is retried with the
// reconciliation backoff (1 min doubling, at most 6 h) for 3 days, then given up.
type SubscriptionSender struct {
	Outbox SubscriptionOutbox
	Keys   *readmodels.WebhookKeys
	Via    *Dispatcher // its HTTP client, URL checks and clock
	Log    zerolog.Logger
}

// Run sends due notifications every interval until ctx ends.
func (s *SubscriptionSender) Run(ctx context.Context, interval time.Duration) error {
	for {
		if _, err := s.SendDue(ctx); err != nil && ctx.Err() == nil {
			s.Log.Warn().Err(err).Msg("subscription webhooks")
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(interval):
		}
	}
}

// SendDue makes one attempt for every due notification and returns how many were delivered.
func (s *SubscriptionSender) SendDue(ctx context.Context) (int, error) {
	delivered := 0
	for {
		list, err := s.Outbox.Claim(ctx, 50, leaseFor)
		if err != nil {
			return delivered, err
		}
		for _, n := range list {
			status, errText := s.send(ctx, n)
			now := s.Via.Now()
			state, next := readmodels.NoteDelivered, now
			if errText != "" {
				state, next = "pending", now.Add(backoff(n.Attempts))
				if now.Sub(n.Created) >= markedRetention {
					state = readmodels.NoteFailed
				}
			}
			if err := s.Outbox.Complete(context.WithoutCancel(ctx), n.ID, state, status, errText, next); err != nil {
				return delivered, err
			}
			if state == readmodels.NoteDelivered {
				delivered++
			}
		}
		if len(list) < 50 {
			return delivered, nil
		}
	}
}

func (s *SubscriptionSender) send(ctx context.Context, n readmodels.SubscriptionWebhook) (*int, string) {
	secret, err := s.Outbox.MerchantSigningKey(ctx, s.Keys, n.Merchant)
	if err != nil {
		return nil, err.Error()
	}
	if err := s.Via.checkURL(n.URL); err != nil {
		return nil, err.Error()
	}
	p := map[string]any{}
	for k, v := range n.Payload {
		p[k] = v
	}
	now := s.Via.Now()
	p["event"], p["idempotencyKey"], p["timestamp"] = n.Event, n.Key, now.UnixMilli()
	body, err := json.Marshal(p)
	if err != nil {
		return nil, err.Error()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, n.URL, bytes.NewReader(body))
	if err != nil {
		return nil, err.Error()
	}
	setHeaders(req.Header, "", body, secret, uuid.New(), n.Key, now)
	req.Header.Set("X-Service-Event", n.Event) // setHeaders names the receipt event

	resp, err := s.Via.client.Do(req)
	if err != nil {
		return nil, err.Error()
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	code := resp.StatusCode
	if code/100 != 2 {
		return &code, "receiver answered " + strconv.Itoa(code)
	}
	return &code, ""
}
