package webhooks

import (
	"cmp"
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/rs/zerolog"
	"go.opentelemetry.io/otel/attribute"

	"github.com/payledger/payledger/internal/secrets"
	"github.com/payledger/payledger/readmodels"
)

// SubscriptionOutbox is the sender's view of the subscription webhook outbox.
type SubscriptionOutbox interface {
	Claim(ctx context.Context, limit int, lease time.Duration) ([]readmodels.SubscriptionWebhook, error)
	Complete(ctx context.Context, id uuid.UUID, state string, status *int, errText string, next time.Time) error
	Release(ctx context.Context, id uuid.UUID) error
	MerchantSigningKey(ctx context.Context, keys *secrets.WebhookKeys, merchant string) (string, error)
}

// SubscriptionSender delivers subscription.charged and subscription.charge_failed to the
// merchant's shop webhookUrl as configured at each attempt ("" stops them), signed like receipt
// webhooks (X-Service-Signature: sha256= HMAC of the exact body with the merchant's API key; the
// X-Service-* headers, and a partner brand's X-<Brand>-* twins), through the dispatcher's
// client (production: https and public addresses only). A failed attempt is retried with the
// reconciliation backoff (1 min doubling, at most 6 h) for 3 days, then given up. An attempt cut
// short by the service's own shutdown is not counted (as for receipt webhooks).
type SubscriptionSender struct {
	Outbox SubscriptionOutbox
	Keys   *secrets.WebhookKeys
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
	// A run's notifications are mostly one merchant's charges: its key is looked up once.
	secrets := map[string]string{}
	// Sent one after another, each within the client's timeout: a claim holds no more than the
	// lease covers, so that no other instance claims (and sends again) what is still being sent.
	batch := max(1, int(leaseFor/cmp.Or(s.Via.Timeout, DefaultTimeout))-1)
	for {
		list, err := s.Outbox.Claim(ctx, batch, leaseFor)
		if err != nil {
			return delivered, err
		}
		for i, n := range list {
			if n.URL == "" {
				// The merchant stopped its subscription webhooks ("" webhookUrl): nothing more is sent.
				if err := s.Outbox.Complete(context.WithoutCancel(ctx), n.ID, readmodels.NoteFailed, nil, errStopped, s.Via.Now()); err != nil {
					return delivered, err
				}
				continue
			}
			status, errText := s.send(ctx, n, secrets)
			if errText != "" && ctx.Err() != nil {
				// Cut short by the service itself (shutdown): not the receiver's failure, as for
				// receipt webhooks. This one and the rest of the claim are due again at once.
				s.releaseAll(ctx, list[i:])
				return delivered, ctx.Err()
			}
			now := s.Via.Now()
			state, next := readmodels.NoteDelivered, now
			if errText != "" {
				state, next = readmodels.NotePending, now.Add(backoff(n.Attempts))
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
		if len(list) < batch {
			return delivered, nil
		}
	}
}

// errStopped is the recorded reason of a notification not sent because the shop's webhookUrl
// was removed.
const errStopped = "not sent: the shop's webhookUrl was removed"

// releaseAll gives up the leases of claimed notifications that were not (fully) attempted.
func (s *SubscriptionSender) releaseAll(ctx context.Context, list []readmodels.SubscriptionWebhook) {
	for _, n := range list {
		s.Via.release(ctx, func(ctx context.Context) error { return s.Outbox.Release(ctx, n.ID) })
	}
}

// send makes one attempt; secrets caches the merchants' signing keys for the run.
func (s *SubscriptionSender) send(ctx context.Context, n readmodels.SubscriptionWebhook, secrets map[string]string) (*int, string) {
	secret, ok := secrets[n.Merchant]
	if !ok {
		var err error
		if secret, err = s.Outbox.MerchantSigningKey(ctx, s.Keys, n.Merchant); err != nil {
			return nil, err.Error()
		}
		secrets[n.Merchant] = secret
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
	status, err := s.Via.post(ctx, n.URL, body, []attribute.KeyValue{eventAttr.String(n.Event)}, func(h http.Header) {
		setHeaders(h, delivery{event: n.Event, brand: n.Brand, body: body, secret: secret, id: uuid.New(), key: n.Key, sentAt: now})
	})
	if err != nil {
		return status, err.Error()
	}
	return status, ""
}
