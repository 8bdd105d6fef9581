package payledger

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"strings"
)

// ErrReceiptWebhookSignature is VerifyReceiptWebhook's refusal.
var ErrReceiptWebhookSignature = errors.New("payledger webhook: X-Service-Signature missing or not the body's HMAC with this key")

// VerifyReceiptWebhook checks a receipt webhook: the receipt.status_updated POSTed to the
// webhook_url a receipt was created with. Its X-Service-Signature is "sha256=" and the hex
// HMAC-SHA256 of the exact body with the API key the receipt was created with (the spec's
// signature; endpoints registered with POST /api/webhooks/endpoints use Webhook instead). Pass
// the body as received, before any JSON decoding. The comparison takes constant time. Answer
// 401 when it returns ErrReceiptWebhookSignature, and deduplicate on X-Service-Idempotency-Key.
func VerifyReceiptWebhook(apiKey string, header http.Header, body []byte) error {
	hexSig, ok := strings.CutPrefix(header.Get("X-Service-Signature"), "sha256=")
	if !ok || apiKey == "" {
		return ErrReceiptWebhookSignature
	}
	got, err := hex.DecodeString(hexSig)
	if err != nil {
		return ErrReceiptWebhookSignature
	}
	mac := hmac.New(sha256.New, []byte(apiKey))
	mac.Write(body)
	if !hmac.Equal(got, mac.Sum(nil)) {
		return ErrReceiptWebhookSignature
	}
	return nil
}
