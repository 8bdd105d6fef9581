package webhooks

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/rs/zerolog"
	"go.opentelemetry.io/otel/attribute"

	"github.com/payledger/payledger/internal/panics"
	"github.com/payledger/payledger/internal/secrets"
	"github.com/payledger/payledger/readmodels"
)

// SubscriptionOutbox is the sender's view of the subscription webhook outbox.
type SubscriptionOutbox interface {
	Claim(ctx context.Context, limit int, lease time.Duration) ([]readmodels.SubscriptionWebhook, error)
	ClaimShared(ctx context.Context, limit, perMerchant int, busy map[string]int, lease time.Duration) ([]readmodels.SubscriptionWebhook, error)
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

// subscriptionBatch is how many notifications one claim takes; they are sent concurrently, each
// within the client's timeout, well inside the lease.
const subscriptionBatch = 32

// subscriptionInFlight bounds Run's attempts on the wire at once.
const subscriptionInFlight = 128

// subscriptionShare bounds one merchant's attempts on the wire at once in Run: a merchant whose
// receiver hangs, with a billing run's backlog, holds at most this many of the places.
const subscriptionShare = 16

// Run sends due notifications until ctx ends, looking for them every interval. It claims again as
// soon as it has room, while earlier attempts still wait for their receivers: sent one after
// another, a merchant with many charges and a hanging receiver held every other merchant's for
// minutes. A merchant has at most subscriptionShare attempts in flight, so one with a backlog does
// not take every place. On return no attempt is left running.
func (s *SubscriptionSender) Run(ctx context.Context, interval time.Duration) error {
	var fails *claimFailures // the dispatcher reports a run of failed claims (Failing)
	if s.Via != nil {
		fails = s.Via.subscriptionClaims
	}
	sendLoop[claimedCharge, string]{
		batch: subscriptionBatch, inFlight: subscriptionInFlight, share: subscriptionShare, keys: newFlying[string](),
		keysOf: func(c claimedCharge) []string { return []string{c.n.Merchant} },
		claim: func(ctx context.Context, limit, share int, busy map[string]int) ([]claimedCharge, error) {
			list, err := s.Outbox.ClaimShared(ctx, limit, share, busy, leaseFor)
			keys := &signingKeys{m: map[string]string{}} // a claim's notifications are mostly one merchant's
			out := make([]claimedCharge, len(list))
			for i, n := range list {
				out[i] = claimedCharge{n: n, keys: keys}
			}
			return out, err
		},
		attempt: func(ctx context.Context, c claimedCharge) {
			if _, err := s.attempt(ctx, c.n, c.keys); err != nil && ctx.Err() == nil {
				s.Log.Warn().Err(err).Msg("subscription webhooks")
			}
		},
		wake: make(chan struct{}, 1), poll: interval,
		log: s.Log, what: "subscription webhooks", fails: fails,
	}.run(ctx)
	return ctx.Err()
}

// claimedCharge is a claimed notification with its claim's cache of signing keys.
type claimedCharge struct {
	n    readmodels.SubscriptionWebhook
	keys *signingKeys
}

// SendDue makes one attempt for every due notification, a claim's concurrently, and returns how
// many were delivered; one due once an earlier one of its subscription was delivered in the same
// pass is attempted too.
func (s *SubscriptionSender) SendDue(ctx context.Context) (int, error) {
	var delivered atomic.Int64
	for {
		list, err := s.Outbox.Claim(ctx, subscriptionBatch, leaseFor)
		if err != nil {
			return int(delivered.Load()), err
		}
		// A claim's notifications are mostly one merchant's charges: its key is looked up once.
		keys := &signingKeys{m: map[string]string{}}
		var (
			sent  sync.WaitGroup
			first error
			mu    sync.Mutex
		)
		for _, n := range list {
			sent.Go(func() {
				defer panics.Recover(ctx, s.Log) // still leased: due again after the lease
				ok, err := s.attempt(ctx, n, keys)
				if ok {
					delivered.Add(1)
				}
				mu.Lock()
				defer mu.Unlock()
				first = cmp.Or(first, err)
			})
		}
		sent.Wait()
		// Claimed until nothing is due: a delivery releases the next notification of its
		// subscription held behind it (readmodels' notHeld), which is sent in the same pass; each
		// claimed one is closed, moved to a later retry or stays leased, so this ends.
		if first != nil || len(list) == 0 {
			return int(delivered.Load()), first
		}
	}
}

// attempt sends one claimed notification and records the outcome: delivered, or pending again
// after the backoff, or failed (given up, or the shop's webhookUrl removed). An attempt cut short
// by the service itself (shutdown) is not the receiver's failure, as for receipt webhooks: it is
// not recorded and the notification is due again at once (ctx's error is returned).
func (s *SubscriptionSender) attempt(ctx context.Context, n readmodels.SubscriptionWebhook, keys *signingKeys) (bool, error) {
	if n.URL == "" {
		// The merchant stopped its subscription webhooks ("" webhookUrl): nothing more is sent.
		return false, s.Via.record(func() error {
			return s.Outbox.Complete(context.WithoutCancel(ctx), n.ID, readmodels.NoteFailed, nil, errStopped, s.Via.Now())
		})
	}
	status, errText := s.send(ctx, n, keys)
	if errText != "" && ctx.Err() != nil {
		s.Via.release(ctx, func(ctx context.Context) error { return s.Outbox.Release(ctx, n.ID) })
		return false, ctx.Err()
	}
	now := s.Via.Now()
	state, next := readmodels.NoteDelivered, now
	if errText != "" {
		state, next = readmodels.NotePending, now.Add(backoff(n.Attempts))
		if now.Sub(n.Created) >= markedRetention {
			state = readmodels.NoteFailed
		}
	}
	if err := s.Via.record(func() error {
		return s.Outbox.Complete(context.WithoutCancel(ctx), n.ID, state, status, errText, next)
	}); err != nil {
		return false, err
	}
	return state == readmodels.NoteDelivered, nil
}

// signingKeys caches merchants' signing keys for one claim's concurrent attempts.
type signingKeys struct {
	mu sync.Mutex
	m  map[string]string
}

// errStopped is the recorded reason of a notification not sent because the shop's webhookUrl
// was removed.
const errStopped = "not sent: the shop's webhookUrl was removed"

// send makes one attempt; keys caches the merchants' signing keys for the claim. A failure is
// recorded as deliveryError's category (DESIGN 10), as receipt webhooks' are: Go's error text
// named the service's resolver and internal addresses in last_error. The detail goes to the
// operator's log.
func (s *SubscriptionSender) send(ctx context.Context, n readmodels.SubscriptionWebhook, keys *signingKeys) (*int, string) {
	status, err := s.post(ctx, n, keys)
	if err == nil {
		return status, ""
	}
	s.Log.Debug().Err(err).Str("subscription_webhook", n.ID.String()).Msg("subscription webhook delivery failed")
	return status, deliveryError(err)
}

// post signs n with the merchant's key and posts it to the shop's webhookUrl.
func (s *SubscriptionSender) post(ctx context.Context, n readmodels.SubscriptionWebhook, keys *signingKeys) (*int, error) {
	keys.mu.Lock()
	secret, ok := keys.m[n.Merchant]
	keys.mu.Unlock()
	if !ok {
		var err error
		if secret, err = s.Outbox.MerchantSigningKey(ctx, s.Keys, n.Merchant); err != nil {
			return nil, err
		}
		keys.mu.Lock()
		keys.m[n.Merchant] = secret
		keys.mu.Unlock()
	}
	if err := s.Via.checkURL(n.URL); err != nil {
		return nil, err
	}
	p := map[string]any{}
	for k, v := range n.Payload {
		p[k] = v
	}
	now := s.Via.Now()
	p["event"], p["idempotencyKey"], p["timestamp"] = n.Event, n.Key, now.UnixMilli()
	body, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("encode subscription webhook: %w", err)
	}
	return s.Via.post(ctx, n.URL, body, []attribute.KeyValue{eventAttr.String(n.Event)}, func(h http.Header) {
		setHeaders(h, delivery{event: n.Event, brand: n.Brand, body: body, secret: secret, id: uuid.New(), key: n.Key, sentAt: now})
	})
}
