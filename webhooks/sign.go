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
)

// Event is the one event kind sent.
const Event = "receipt.status_updated"

// DefaultBrandKey is the brand of merchants without a partner brand.
const DefaultBrandKey = "payledger"

// SignBody is the X-Service-Signature value: sha256= and the hex HMAC-SHA256 of the exact body.
func SignBody(secret string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

// setHeaders sets the spec's webhook headers: the X-Service-* set always, and for a partner
// brand its own X-<Brand>-* twins and user agent (the last set wins the shared headers).
func setHeaders(h http.Header, brand string, body []byte, secret string, deliveryID uuid.UUID, key string, sentAt time.Time) {
	setPrefixed(h, "Service", "Service-Webhook/1.0", body, secret, deliveryID, key, sentAt)
	if brand != "" && brand != DefaultBrandKey {
		name := strings.ToUpper(brand[:1]) + brand[1:]
		setPrefixed(h, name, name+"-Webhook/1.0", body, secret, deliveryID, key, sentAt)
	}
}

func setPrefixed(h http.Header, prefix, userAgent string, body []byte, secret string, deliveryID uuid.UUID, key string, sentAt time.Time) {
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", userAgent)
	h.Set("X-"+prefix+"-Signature", SignBody(secret, body))
	h.Set("X-"+prefix+"-Event", Event)
	h.Set("X-"+prefix+"-Delivery", deliveryID.String())
	h.Set("X-"+prefix+"-Idempotency-Key", key)
	h.Set("X-"+prefix+"-Timestamp", strconv.FormatInt(sentAt.UnixMilli(), 10))
}
