package webhooks

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/payledger/payledger/readmodels"
)

// Event is the event kind of receipt webhooks (subscription webhooks name their own).
const Event = readmodels.EventReceiptStatusUpdated

// DefaultBrandKey is the brand of merchants without a partner brand.
const DefaultBrandKey = readmodels.DefaultBrandKey

// SignBody is the X-Service-Signature value: sha256= and the hex HMAC-SHA256 of the exact body.
func SignBody(secret string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

// delivery is one signed webhook request: what its headers name and sign.
type delivery struct {
	event  string // X-*-Event
	brand  string // the merchant's brand key; "" or DefaultBrandKey: the X-Service-* set only
	body   []byte
	secret string // the merchant's signing key
	id     uuid.UUID
	key    string // the idempotency key
	sentAt time.Time
}

// setHeaders sets the spec's webhook headers: the X-Service-* set always, and for a partner
// brand its own X-<Brand>-* twins and user agent (the last set wins the shared headers).
func setHeaders(h http.Header, d delivery) {
	setPrefixed(h, "Service", "Service-Webhook/1.0", d)
	if d.brand != "" && d.brand != DefaultBrandKey {
		name := strings.ToUpper(d.brand[:1]) + d.brand[1:]
		setPrefixed(h, name, name+"-Webhook/1.0", d)
	}
}

func setPrefixed(h http.Header, prefix, userAgent string, d delivery) {
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", userAgent)
	h.Set("X-"+prefix+"-Signature", SignBody(d.secret, d.body))
	h.Set("X-"+prefix+"-Event", d.event)
	h.Set("X-"+prefix+"-Delivery", d.id.String())
	h.Set("X-"+prefix+"-Idempotency-Key", d.key)
	h.Set("X-"+prefix+"-Timestamp", strconv.FormatInt(d.sentAt.UnixMilli(), 10))
}
