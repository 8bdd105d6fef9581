package webhooks

import (
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"
)

func TestSignBody(t *testing.T) {
	t.Parallel()
	// A published known answer: HMAC-SHA256 of "The quick brown fox jumps over the lazy dog" with key "key".
	got := SignBody("key", []byte("The quick brown fox jumps over the lazy dog"))
	if want := "sha256=f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8"; got != want {
		t.Fatalf("SignBody = %s, want %s", got, want)
	}
}

func TestHeadersAndBrandTwins(t *testing.T) {
	t.Parallel()
	body, id, at := []byte(`{"a":1}`), uuid.New(), time.UnixMilli(1_700_000_000_123)
	names := []string{"Signature", "Event", "Delivery", "Idempotency-Key", "Timestamp"}
	cases := []struct {
		name, event, brand, twin, userAgent string
	}{
		{"no brand", Event, "", "", "Service-Webhook/1.0"},
		{"the default brand", Event, DefaultBrandKey, "", "Service-Webhook/1.0"},
		{"a partner brand", Event, "acme", "Acme", "Acme-Webhook/1.0"},
		{"a subscription event", "subscription.charged", "", "", "Service-Webhook/1.0"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := http.Header{}
			setHeaders(h, delivery{event: c.event, brand: c.brand, body: body, secret: "plk_k", id: id, key: "key-1", sentAt: at})
			want := map[string]string{"Signature": SignBody("plk_k", body), "Event": c.event, "Delivery": id.String(),
				"Idempotency-Key": "key-1", "Timestamp": "1700000000123"}
			for _, n := range names {
				if h.Get("X-Service-"+n) != want[n] {
					t.Errorf("X-Service-%s = %q, want %q", n, h.Get("X-Service-"+n), want[n])
				}
				if c.twin != "" && h.Get("X-"+c.twin+"-"+n) != want[n] {
					t.Errorf("X-%s-%s = %q, want %q", c.twin, n, h.Get("X-"+c.twin+"-"+n), want[n])
				}
			}
			if h.Get("User-Agent") != c.userAgent || h.Get("Content-Type") != "application/json" {
				t.Errorf("User-Agent %q, Content-Type %q", h.Get("User-Agent"), h.Get("Content-Type"))
			}
			if c.twin == "" && len(h) != 7 {
				t.Errorf("%d headers, want the X-Service-* set only: %v", len(h), h)
			}
		})
	}
}
