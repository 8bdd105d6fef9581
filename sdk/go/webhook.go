package payledger

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// WebhookTolerance is how far a delivery's webhook-timestamp may be from the receiver's clock,
// either way, before it is refused as a replay (Standard Webhooks).
const WebhookTolerance = 5 * time.Minute

// Errors of Webhook.Verify.
var (
	ErrWebhookHeaders   = errors.New("payledger webhook: webhook-id, webhook-timestamp or webhook-signature missing")
	ErrWebhookTimestamp = errors.New("payledger webhook: timestamp outside the 5 minute tolerance")
	ErrWebhookSignature = errors.New("payledger webhook: no signature matches")
)

// Webhook verifies the deliveries of one endpoint (Standard Webhooks: webhook-id,
// webhook-timestamp, webhook-signature "v1,<base64 HMAC-SHA256 of id.timestamp.body>").
type Webhook struct {
	key []byte
	now func() time.Time
}

// NewWebhook takes the endpoint's secret, whsec_ and base64, as the dashboard shows it.
func NewWebhook(secret string) (*Webhook, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil || len(key) == 0 {
		return nil, fmt.Errorf("payledger webhook: the secret is not whsec_ and base64")
	}
	return &Webhook{key: key, now: time.Now}, nil
}

// Verify checks a delivery's headers against its exact body, as received (before any JSON
// decoding). It returns ErrWebhookHeaders, ErrWebhookTimestamp or ErrWebhookSignature.
func (w *Webhook) Verify(header http.Header, body []byte) error {
	id, ts, sigs := header.Get("webhook-id"), header.Get("webhook-timestamp"), header.Get("webhook-signature")
	if id == "" || ts == "" || sigs == "" {
		return ErrWebhookHeaders
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return ErrWebhookTimestamp
	}
	if d := w.now().Sub(time.Unix(sec, 0)); d > WebhookTolerance || d < -WebhookTolerance {
		return ErrWebhookTimestamp
	}
	mac := hmac.New(sha256.New, w.key)
	mac.Write([]byte(id + "." + ts + "."))
	mac.Write(body)
	want := mac.Sum(nil)
	// Several signatures, space-separated, while a secret is being rotated.
	for _, s := range strings.Fields(sigs) {
		version, b64, ok := strings.Cut(s, ",")
		if !ok || version != "v1" {
			continue
		}
		got, err := base64.StdEncoding.DecodeString(b64)
		if err == nil && hmac.Equal(got, want) {
			return nil
		}
	}
	return ErrWebhookSignature
}
