package webhooks

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/payledger/payledger/readmodels"
)

// Event types of webhook endpoints (DESIGN 9, the catalog of docs/webhooks.md). An endpoint's
// filter names some of them or "*".
const (
	TypeReceiptCreated           = readmodels.EventReceiptCreated
	TypeReceiptStatusUpdated     = Event
	TypeReceiptPaymentDetected   = readmodels.EventReceiptPaymentDetected
	TypeSubscriptionCharged      = readmodels.EventSubscriptionCharged
	TypeSubscriptionChargeFailed = readmodels.EventSubscriptionChargeFailed
	TypeSplitDistributed         = readmodels.EventSplitDistributed
	TypeReceiptRefunded          = readmodels.EventReceiptRefunded
	TypeReceiptRefundFailed      = readmodels.EventReceiptRefundFailed
	TypeTest                     = readmodels.EventWebhookTest
)

// EventTypes is the catalog: every type an endpoint may ask for. receipt.payment_detected is
// known before anything records it, so that a filter naming it is valid and receives it once
// recorded.
var EventTypes = []string{TypeReceiptCreated, TypeReceiptStatusUpdated, TypeReceiptPaymentDetected, TypeSubscriptionCharged,
	TypeSubscriptionChargeFailed, TypeSplitDistributed, TypeReceiptRefunded, TypeReceiptRefundFailed, TypeTest}

// KnownType says whether t is in the catalog.
func KnownType(t string) bool {
	for _, k := range EventTypes {
		if k == t {
			return true
		}
	}
	return false
}

// SecretPrefix starts every endpoint secret (Standard Webhooks).
const SecretPrefix = "whsec_"

// NewSecret returns a fresh endpoint secret: whsec_ and the base64 of 32 random bytes.
func NewSecret() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return SecretPrefix + base64.StdEncoding.EncodeToString(b[:]), nil
}

var errBadSecret = errors.New("webhook secret is not whsec_ and base64")

// StandardSignature is the webhook-signature value of Standard Webhooks: v1, and the base64
// HMAC-SHA256, keyed by the secret's base64-decoded bytes, of "<id>.<timestamp>.<body>".
func StandardSignature(secret, id string, timestamp int64, body []byte) (string, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, SecretPrefix))
	if err != nil || len(key) == 0 {
		return "", errBadSecret
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + strconv.FormatInt(timestamp, 10) + "."))
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil)), nil
}

// StandardBody is the body of an endpoint delivery: {type, timestamp (ISO 8601), data}. It is
// the same on every attempt of an event, so a retry carries exactly what the first one did.
func StandardBody(eventType string, occurred time.Time, data json.RawMessage) ([]byte, error) {
	return json.Marshal(struct {
		Type      string          `json:"type"`
		Timestamp string          `json:"timestamp"`
		Data      json.RawMessage `json:"data"`
	}{eventType, occurred.UTC().Format(time.RFC3339Nano), data})
}

// StandardSignatures is the webhook-signature value signed with each of secrets, space-separated
// in their order (during a secret rotation: the new secret's, then the old one's; a receiver
// accepts if one matches). Any secret that does not decode fails the whole value: nothing is
// sent with a signature missing.
func StandardSignatures(secrets []string, id string, timestamp int64, body []byte) (string, error) {
	if len(secrets) == 0 {
		return "", errBadSecret
	}
	sigs := make([]string, len(secrets))
	for i, secret := range secrets {
		sig, err := StandardSignature(secret, id, timestamp, body)
		if err != nil {
			return "", err
		}
		sigs[i] = sig
	}
	return strings.Join(sigs, " "), nil
}

// SetStandardHeaders signs body for the webhook id at sentAt and sets the Standard Webhooks
// headers on h.
func SetStandardHeaders(h http.Header, secret, id string, sentAt time.Time, body []byte) error {
	sig, err := StandardSignature(secret, id, sentAt.Unix(), body)
	if err != nil {
		return err
	}
	setSignedHeaders(h, id, sentAt, sig)
	return nil
}

// setSignedHeaders sets the Standard Webhooks headers on h with sig, the webhook-signature value
// made for id at sentAt (StandardSignature, StandardSignatures).
func setSignedHeaders(h http.Header, id string, sentAt time.Time, sig string) {
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", "Service-Webhook/1.0")
	h.Set("webhook-id", id)
	h.Set("webhook-timestamp", strconv.FormatInt(sentAt.Unix(), 10))
	h.Set("webhook-signature", sig)
}
